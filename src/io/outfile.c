/* outfile.c: the safe output writer and its probes (declared in outfile.h). */
#include "io/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Flush and check f; 0 or -1 with errno (EIO when the stream only remembers an error). */
static int finish_stream(FILE *f)
{
    if (fflush(f) != 0) return -1;
    if (ferror(f)) {
        errno = EIO;
        return -1;
    }
    return 0;
}

/* May the user replace the existing regular file st (path)? access(W_OK), and — since access
 * says yes to root for any file — at least one write bit: a file nobody may write (0444) was
 * made read-only on purpose and is not replaced. 0 or -1 with errno EACCES. */
static int may_replace(const char *path, const struct stat *st)
{
    if (access(path, W_OK) != 0) return -1;
    if (!(st->st_mode & 0222)) {
        errno = EACCES;
        return -1;
    }
    return 0;
}

/* Write straight into an existing non-regular file (device, FIFO, socket): no create, no
 * truncation. */
static int write_into(const char *path, int (*emit)(FILE *, void *), void *ctx)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) return -1;
    FILE *f = fdopen(fd, "w");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    int rc = emit(f, ctx) == 0 ? 0 : -1;
    int e = rc ? (errno ? errno : EIO) : 0;
    if (finish_stream(f) != 0 && !rc) {
        rc = -1;
        e = errno;
    }
    if (fclose(f) != 0 && !rc) {
        rc = -1;
        e = errno;
    }
    errno = e;
    return rc;
}

/* The directory part of path ("." when there is none), allocated; NULL on no memory. */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash) return strdup(".");
    if (slash == path) return strdup("/");
    size_t n = (size_t)(slash - path);
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, path, n);
    d[n] = '\0';
    return d;
}

int gv_write_file(const char *path, int (*emit)(FILE *f, void *ctx), void *ctx)
{
    if (!path || !path[0]) {
        errno = EINVAL;
        return -1;
    }
    if (strcmp(path, "-") == 0) {
        int rc = emit(stdout, ctx) == 0 ? 0 : -1;
        if (finish_stream(stdout) != 0) rc = -1;
        if (rc && !errno) errno = EIO;
        return rc;
    }
    struct stat st;
    bool exists = stat(path, &st) == 0;
    if (!exists && errno != ENOENT) return -1;
    if (exists) {
        if (S_ISDIR(st.st_mode)) {
            errno = EISDIR;
            return -1;
        }
        if (!S_ISREG(st.st_mode)) return write_into(path, emit, ctx);
        if (may_replace(path, &st) != 0) return -1;
    }
    /* ".NAME.XXXXXX" beside path: the same file system, so the rename is atomic */
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dlen = (size_t)(base - path), blen = strlen(base);
    char *tmp = malloc(dlen + blen + 10);
    if (!tmp) return -1;
    memcpy(tmp, path, dlen);
    tmp[dlen] = '.';
    memcpy(tmp + dlen + 1, base, blen);
    memcpy(tmp + dlen + 1 + blen, ".XXXXXX", 8);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        int e = errno;
        free(tmp);
        errno = e;
        return -1;
    }
    mode_t mode;
    if (exists) {
        mode = st.st_mode & 07777;
    } else {
        mode_t um = umask(0);
        umask(um);
        mode = 0666 & ~um;
    }
    int rc = 0, e = 0;
    FILE *f = fchmod(fd, mode) == 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        e = errno;
        close(fd);
        rc = -1;
    } else {
        errno = 0;
        if (emit(f, ctx) != 0) {
            rc = -1;
            e = errno ? errno : EIO;
        }
        if (!rc && (finish_stream(f) != 0 || fsync(fileno(f)) != 0)) {
            rc = -1;
            e = errno;
        }
        if (fclose(f) != 0 && !rc) {
            rc = -1;
            e = errno;
        }
    }
    if (!rc && rename(tmp, path) != 0) {
        rc = -1;
        e = errno;
    }
    if (rc) unlink(tmp); /* only ever the file mkstemp made */
    free(tmp);
    errno = e;
    return rc;
}

int gv_probe_writable(const char *path)
{
    if (!path || !path[0]) {
        errno = EINVAL;
        return -1;
    }
    if (strcmp(path, "-") == 0) return 0;
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            errno = EISDIR;
            return -1;
        }
        return S_ISREG(st.st_mode) ? may_replace(path, &st) : access(path, W_OK);
    }
    if (errno != ENOENT) return -1;
    char *dir = dir_of(path);
    if (!dir) return -1;
    int rc = 0;
    if (stat(dir, &st) != 0) {
        rc = -1;
    } else if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        rc = -1;
    } else {
        rc = access(dir, W_OK | X_OK);
    }
    int e = errno;
    free(dir);
    errno = e;
    return rc;
}

/* Do a and b name one file: the same string, or one existing file by device and inode? */
static bool same_file(const char *a, const char *b)
{
    if (strcmp(a, b) == 0) return true;
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino && S_ISREG(sa.st_mode);
}

int gv_probe_outputs(int n, const char *const *paths, const char *const *opts)
{
    for (int i = 0; i < n; i++) {
        if (!paths[i]) continue;
        if (gv_probe_writable(paths[i]) != 0) {
            fprintf(stderr, "gpuval: cannot write %s '%s': %s\n", opts[i], paths[i],
                    strerror(errno));
            return -1;
        }
        if (strcmp(paths[i], "-") == 0) continue;
        for (int j = 0; j < i; j++)
            if (paths[j] && strcmp(paths[j], "-") != 0 && same_file(paths[i], paths[j])) {
                fprintf(stderr, "gpuval: %s and %s name the same file '%s'; give each its own\n",
                        opts[j], opts[i], paths[i]);
                return -1;
            }
    }
    return 0;
}
