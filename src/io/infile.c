/* infile.c: inputs that are regular files only (see infile.h). */
#include "io/infile.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *gv_file_kind(unsigned mode)
{
    if (S_ISREG(mode)) return "a regular file";
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
    if (S_ISSOCK(mode)) return "a socket";
    return "not a regular file";
}

FILE *gv_fopen_regular(const char *path, char *why, size_t len)
{
    if (!path || !*path) {
        errno = ENOENT;
        snprintf(why, len, "%s", strerror(errno));
        return NULL;
    }
    /* O_NONBLOCK: opening a FIFO without a writer returns at once instead of waiting */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(why, len, "%s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        errno = e;
        snprintf(why, len, "%s", strerror(e));
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        errno = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        snprintf(why, len, "%s, not a regular file", gv_file_kind(st.st_mode));
        return NULL;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
        snprintf(why, len, "%s", strerror(e));
    }
    return f;
}

json_t *gv_json_load_regular(const char *path, size_t flags, json_error_t *err)
{
    char why[160];
    FILE *f = gv_fopen_regular(path, why, sizeof why);
    if (!f) {
        memset(err, 0, sizeof *err);
        err->line = err->column = -1;
        snprintf(err->source, sizeof err->source, "%s", path ? path : "");
        /* as jansson words it; cut to the field's size */
        int n = snprintf(err->text, sizeof err->text, "unable to open %.60s", path ? path : "");
        if (n > 0 && (size_t)n < sizeof err->text)
            snprintf(err->text + n, sizeof err->text - (size_t)n, ": %.*s",
                     (int)(sizeof err->text - (size_t)n - 3), why);
        return NULL;
    }
    json_t *doc = json_loadf(f, flags, err);
    fclose(f);
    return doc;
}
