/* outfile.c: the safe output writer and its probes (declared in outfile.h). */
#include "io/outfile.h"
#include "core/gv.h"
#include "io/infile.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
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

/* The template of a temporary beside path: ".NAME.XXXXXX" in path's directory, NAME cut so
   that the whole fits a file name (NAME_MAX, 255 on Linux): a long but legal NAME must not make
   the temporary's name too long. Allocated; NULL on no memory. */
static char *temp_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dlen = (size_t)(base - path), blen = strlen(base);
    if (blen > NAME_MAX - 8) blen = NAME_MAX - 8; /* "." + NAME + ".XXXXXX" */
    char *tmp = malloc(dlen + blen + 10);
    if (!tmp) return NULL;
    memcpy(tmp, path, dlen);
    tmp[dlen] = '.';
    memcpy(tmp + dlen + 1, base, blen);
    memcpy(tmp + dlen + 1 + blen, ".XXXXXX", 8);
    return tmp;
}

/* A temporary made beside path (temp_name): its open descriptor, its name in *tmp (allocated);
   -1 with errno and *tmp NULL where none could be made. */
static int make_temp(const char *path, char **tmp)
{
    *tmp = temp_name(path);
    if (!*tmp) return -1;
    int fd = mkstemp(*tmp);
    if (fd < 0) {
        int e = errno;
        free(*tmp);
        *tmp = NULL;
        errno = e;
    }
    return fd;
}

/* Can a temporary be made beside path (the directory's file system, permissions, immutable
   flag, name length)? One is created and removed at once. 0 or -1 with errno. */
static int try_temp(const char *path)
{
    char *tmp;
    int fd = make_temp(path, &tmp);
    if (fd < 0) return -1;
    close(fd);
    unlink(tmp); /* only ever the file mkstemp made */
    free(tmp);
    return 0;
}

/* The standard output the process started with, once gv_stdout_for_documents moved fd 1 to
   stderr: "-" documents go here; -1 before. */
static int doc_fd = -1;

int gv_stdout_for_documents(void)
{
    if (doc_fd >= 0) return 0;
    if (fflush(stdout) != 0) return -1;
    int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    if (fd < 0) return -1;
    if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    doc_fd = fd;
    return 0;
}

/* emit into a stream on the kept standard output: 0 or -1 with errno */
static int write_doc_fd(int (*emit)(FILE *f, void *ctx), void *ctx)
{
    int fd = dup(doc_fd);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        if (fd >= 0) close(fd);
        return -1;
    }
    errno = 0;
    int rc = emit(f, ctx) == 0 ? 0 : -1;
    if (finish_stream(f) != 0) rc = -1;
    if (fclose(f) != 0) rc = -1;
    if (rc && !errno) errno = EIO;
    return rc;
}

int gv_write_file(const char *path, int (*emit)(FILE *f, void *ctx), void *ctx)
{
    if (!path || !path[0]) {
        errno = EINVAL;
        return -1;
    }
    if (strcmp(path, "-") == 0 && doc_fd >= 0) return write_doc_fd(emit, ctx);
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
        if (!S_ISREG(st.st_mode)) { /* a FIFO nobody reads would block for ever */
            errno = EINVAL;
            return -1;
        }
        if (may_replace(path, &st) != 0) return -1;
    }
    /* ".NAME.XXXXXX" beside path: the same file system, so the rename is atomic */
    char *tmp;
    int fd = make_temp(path, &tmp);
    if (fd < 0) return -1;
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
        if (!S_ISREG(st.st_mode)) {
            errno = EINVAL;
            return -1;
        }
        if (may_replace(path, &st) != 0) return -1;
        return try_temp(path); /* the directory must take the temporary and the rename */
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
    } else if (strlen(path) - (size_t)(strrchr(path, '/') ? strrchr(path, '/') + 1 - path : 0) >
               NAME_MAX) {
        errno = ENAMETOOLONG;
        rc = -1;
    } else {
        rc = access(dir, W_OK | X_OK) == 0 ? try_temp(path) : -1;
    }
    int e = errno;
    free(dir);
    errno = e;
    return rc;
}

/* path's directory resolved (realpath) and its last component, in buf: one spelling for a file
   that does not exist yet. false when the directory cannot be resolved. */
static bool canonical_new(const char *path, char *buf, size_t len)
{
    char *dir = dir_of(path);
    if (!dir) return false;
    char *real = realpath(dir, NULL);
    free(dir);
    if (!real) return false;
    const char *slash = strrchr(path, '/');
    int n = snprintf(buf, len, "%s/%s", real, slash ? slash + 1 : path);
    free(real);
    return n > 0 && (size_t)n < len;
}

bool gv_same_file(const char *a, const char *b)
{
    if (strcmp(a, b) == 0) return true;
    struct stat sa, sb;
    bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
    if (ea && eb) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    if (ea || eb) return false; /* one exists, the other not: two files */
    char ca[PATH_MAX + NAME_MAX + 2], cb[PATH_MAX + NAME_MAX + 2];
    return canonical_new(a, ca, sizeof ca) && canonical_new(b, cb, sizeof cb) &&
           strcmp(ca, cb) == 0;
}

int gv_outputs_check(int n, const char *const *paths, const char *const *opts, gv_error *e)
{
    bool to_stdout = false;
    for (int i = 0; i < n; i++) {
        if (!paths[i]) continue;
        if (gv_probe_writable(paths[i]) != 0) {
            struct stat st;
            int err = errno;
            if (err == EINVAL && stat(paths[i], &st) == 0)
                gv_err_set(e, GV_ST_BAD_INPUT,
                           "cannot write %s '%s': it is %s; gpuval writes regular files only "
                           "(- is standard output)",
                           opts[i], paths[i], gv_file_kind(st.st_mode));
            else
                gv_err_set(e, GV_ST_BAD_INPUT, "cannot write %s '%s': %s", opts[i], paths[i],
                           strerror(err));
            return -1;
        }
        if (strcmp(paths[i], "-") == 0) {
            to_stdout = true;
            continue;
        }
        for (int j = 0; j < i; j++)
            if (paths[j] && strcmp(paths[j], "-") != 0 && gv_same_file(paths[i], paths[j])) {
                gv_err_set(e, GV_ST_BAD_INPUT,
                           "%s '%s' and %s '%s' name the same file; give each its own", opts[j],
                           paths[j], opts[i], paths[i]);
                return -1;
            }
    }
    /* a document on stdout: stdout holds it alone, every table and line goes to stderr */
    if (to_stdout && gv_stdout_for_documents() != 0) {
        gv_err_set(e, GV_ST_BAD_INPUT, "cannot keep standard output for the document: %s",
                   strerror(errno));
        return -1;
    }
    return 0;
}

int gv_not_inputs_check(int n, const char *const *paths, const char *const *opts, int n_in,
                        const char *const *inputs, gv_error *e)
{
    for (int i = 0; i < n; i++) {
        if (!paths[i] || strcmp(paths[i], "-") == 0) continue;
        for (int k = 0; k < n_in; k++)
            if (inputs[k] && gv_same_file(paths[i], inputs[k])) {
                gv_err_set(e, GV_ST_BAD_INPUT,
                           "%s '%s' is the input '%s': an output never replaces an input",
                           opts[i], paths[i], inputs[k]);
                return -1;
            }
    }
    return 0;
}

void gv_write_failure(const char *path, gv_error *e)
{
    int err = errno ? errno : EIO;
    gv_status st = gv_write_status(err);
    if (strcmp(path, "-") == 0) {
        gv_err_set(e, st, "writing standard output failed: %s", strerror(err));
        return;
    }
    if (err == EINVAL) {
        struct stat sb;
        if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
            gv_err_set(e, st, "could not write %s: it is %s, not a regular file", path,
                       gv_file_kind(sb.st_mode));
            return;
        }
    }
    gv_err_set(e, st, "could not write %s: %s", path, strerror(err));
}

gv_status gv_write_status(int err)
{
    switch (err) {
    case EACCES:
    case EPERM:
    case EROFS:
    case ENAMETOOLONG:
    case ENOENT:
    case ENOTDIR:
    case EISDIR:
    case ELOOP:
    case ENOTEMPTY:
    case EEXIST:
    case EBUSY:
    case EINVAL: return GV_ST_BAD_INPUT; /* the place named cannot take a file: bad usage */
    default: return GV_ST_RUNTIME;       /* the write itself failed (ENOSPC, EIO, ...) */
    }
}

/* ---- a directory written whole (gv_write_dir) -------------------------------------------- */

/* Is name one of names[0..n)? */
static bool listed(const char *name, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], name) == 0) return true;
    return false;
}

/* dir as it will be renamed: trailing slashes dropped, a symlink resolved (the exchange must
   move the directory, not the link to it). Allocated; NULL with errno. */
static char *dir_target(const char *dir, bool exists)
{
    if (exists) return realpath(dir, NULL);
    char *t = strdup(dir);
    if (!t) return NULL;
    for (size_t n = strlen(t); n > 1 && t[n - 1] == '/'; n--)
        t[n - 1] = '\0';
    return t;
}

/* The checks gv_probe_dir and gv_write_dir share: dir absent (its parent a directory) or a
   directory gpuval may move, holding only regular files and symlinks. *exists says which;
   0 or -1 with errno and why. */
static int check_dir(const char *dir, bool *exists, mode_t *mode, char *why, size_t len)
{
    struct stat st, here, root;
    if (!dir || !dir[0]) {
        snprintf(why, len, "an empty directory name");
        errno = EINVAL;
        return -1;
    }
    *exists = stat(dir, &st) == 0;
    if (!*exists) {
        int e = errno;
        if (e != ENOENT) {
            snprintf(why, len, "%s: %s", dir, strerror(e));
            errno = e;
            return -1;
        }
        char *parent = dir_of(dir);
        if (!parent) return -1;
        int rc = stat(parent, &st);
        e = rc == 0 && !S_ISDIR(st.st_mode) ? ENOTDIR : errno;
        if (rc != 0 || !S_ISDIR(st.st_mode)) {
            snprintf(why, len, "%s: its parent %s: %s", dir, parent, strerror(e));
            free(parent);
            errno = e;
            return -1;
        }
        free(parent);
        mode_t um = umask(0);
        umask(um);
        *mode = 0777 & ~um;
        return 0;
    }
    if (!S_ISDIR(st.st_mode)) {
        snprintf(why, len, "%s exists and is %s, not a directory", dir, gv_file_kind(st.st_mode));
        errno = ENOTDIR;
        return -1;
    }
    *mode = st.st_mode & 07777;
    if ((stat(".", &here) == 0 && here.st_dev == st.st_dev && here.st_ino == st.st_ino) ||
        (stat("/", &root) == 0 && root.st_dev == st.st_dev && root.st_ino == st.st_ino)) {
        snprintf(why, len, "%s is the working directory or /: give the case a directory of its own",
                 dir);
        errno = EBUSY;
        return -1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        int e = errno;
        snprintf(why, len, "%s: %s", dir, strerror(e));
        errno = e;
        return -1;
    }
    int rc = 0;
    for (struct dirent *de; rc == 0 && (de = readdir(d)) != NULL;) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
        struct stat es;
        if (fstatat(dirfd(d), de->d_name, &es, AT_SYMLINK_NOFOLLOW) != 0) continue; /* gone */
        if (!S_ISREG(es.st_mode) && !S_ISLNK(es.st_mode)) {
            snprintf(why, len,
                     "%s holds %s, %s: the case's directory is replaced whole, and that is not "
                     "gpuval's to move; give another directory",
                     dir, de->d_name, gv_file_kind(es.st_mode));
            errno = ENOTEMPTY;
            rc = -1;
        }
    }
    closedir(d);
    return rc;
}

/* Remove the temporary directory gpuval made and everything in it (regular files, links:
   all its own, made by fill or linked in). */
static void remove_temp_dir(const char *tmp)
{
    DIR *d = opendir(tmp);
    if (d) {
        for (struct dirent *de; (de = readdir(d)) != NULL;)
            if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
                unlinkat(dirfd(d), de->d_name, 0);
        closedir(d);
    }
    rmdir(tmp);
}

/* A fresh temporary directory beside dir's target (dir_target), its path returned (free it)
   with the target in *target; NULL with errno and why when it cannot be made. */
static char *temp_dir_beside(const char *dir, bool exists, char **target, char *why, size_t len)
{
    *target = dir_target(dir, exists);
    char *tmp = *target ? temp_name(*target) : NULL;
    if (!tmp || !mkdtemp(tmp)) {
        int e = errno;
        snprintf(why, len, "%s: cannot make a temporary directory beside it: %s", dir, strerror(e));
        free(tmp);
        free(*target);
        *target = NULL;
        errno = e;
        return NULL;
    }
    return tmp;
}

int gv_probe_dir(const char *dir, char *why, size_t len)
{
    bool exists;
    mode_t mode;
    if (check_dir(dir, &exists, &mode, why, len) != 0) return -1;
    char *target = NULL;
    char *tmp = temp_dir_beside(dir, exists, &target, why, len);
    if (!tmp) return -1;
    rmdir(tmp);
    free(tmp);
    free(target);
    return 0;
}

/* Link the entries of dir that fill did not write (names) into tmp: the user's own files stay
   in the directory that takes dir's place. 0 or -1 with errno and why. */
static int link_others(const char *dir, const char *tmp, const char *const *names, int n, char *why,
                       size_t len)
{
    DIR *d = opendir(dir);
    int tfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = d && tfd >= 0 ? 0 : -1;
    for (struct dirent *de; rc == 0 && (de = readdir(d)) != NULL;) {
        const char *name = de->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || listed(name, names, n)) continue;
        struct stat es;
        if (fstatat(dirfd(d), name, &es, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (S_ISREG(es.st_mode)) {
            rc = linkat(dirfd(d), name, tfd, name, 0);
        } else if (S_ISLNK(es.st_mode)) {
            char target[PATH_MAX + 1];
            ssize_t k = readlinkat(dirfd(d), name, target, PATH_MAX);
            rc = k < 0 ? -1 : (target[k] = '\0', symlinkat(target, tfd, name));
        } else {
            errno = ENOTEMPTY;
            rc = -1;
        }
        if (rc != 0) {
            int e = errno;
            snprintf(why, len, "%s: keeping %s in the new directory: %s", dir, name, strerror(e));
            errno = e;
        }
    }
    int e = errno;
    if (d) closedir(d);
    if (tfd >= 0) close(tfd);
    if (rc != 0 && why[0] == '\0') snprintf(why, len, "%s: %s", dir, strerror(e));
    errno = e;
    return rc;
}

/* The old directory, now at old: remove what the new one replaced (names) or holds a link of
   (the same inode, the same symlink target), then the directory if that emptied it. Anything
   else (a file made there in the meantime) stays, and so does the directory. */
static void retire_old(const char *old, const char *now, const char *const *names, int n)
{
    DIR *d = opendir(old);
    int nfd = open(now, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (!d || nfd < 0) {
        if (d) closedir(d);
        if (nfd >= 0) close(nfd);
        return;
    }
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        const char *name = de->d_name;
        if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0) continue;
        struct stat os, ns;
        if (fstatat(dirfd(d), name, &os, AT_SYMLINK_NOFOLLOW) != 0) continue;
        if (!S_ISREG(os.st_mode) && !S_ISLNK(os.st_mode)) continue;
        bool same = fstatat(nfd, name, &ns, AT_SYMLINK_NOFOLLOW) == 0 &&
                    ((S_ISREG(os.st_mode) && ns.st_dev == os.st_dev && ns.st_ino == os.st_ino) ||
                     (S_ISLNK(os.st_mode) && S_ISLNK(ns.st_mode)));
        if (listed(name, names, n) || same) unlinkat(dirfd(d), name, 0);
    }
    closedir(d);
    close(nfd);
    rmdir(old); /* fails, harmlessly, when something new is there */
}

int gv_write_dir(const char *dir, const char *const *names, int n_names,
                 int (*fill)(const char *tmp, void *ctx), void *ctx, char *why, size_t len)
{
    why[0] = '\0';
    bool exists;
    mode_t mode;
    if (check_dir(dir, &exists, &mode, why, len) != 0) return -1;
    for (int i = 0; exists && i < n_names; i++) { /* a file made read-only is kept, as by
                                                     gv_write_file: the whole write is refused */
        char path[PATH_MAX];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && may_replace(path, &st) != 0) {
            int e = errno;
            snprintf(why, len, "%s may not be replaced: %s", path, strerror(e));
            errno = e;
            return -1;
        }
    }
    char *target = NULL;
    char *tmp = temp_dir_beside(dir, exists, &target, why, len);
    if (!tmp) return -1;
    int rc = chmod(tmp, mode), e = 0;
    if (rc != 0) {
        e = errno;
        snprintf(why, len, "%s: %s", tmp, strerror(e));
    }
    if (rc == 0) {
        errno = 0;
        rc = fill(tmp, ctx);
        e = rc ? (errno ? errno : EIO) : 0;
        if (rc && !why[0]) snprintf(why, len, "writing %s: %s", dir, strerror(e));
    }
    if (rc == 0 && exists) {
        rc = link_others(target, tmp, names, n_names, why, len);
        e = rc ? errno : 0;
    }
    if (rc == 0 && !exists) {
        rc = rename(tmp, target); /* the new directory, whole, appears at once */
        e = rc ? errno : 0;
        if (rc) snprintf(why, len, "%s: %s", dir, strerror(e));
    } else if (rc == 0) {
        rc = renameat2(AT_FDCWD, tmp, AT_FDCWD, target, RENAME_EXCHANGE);
        if (rc != 0 && (errno == EINVAL || errno == ENOSYS)) {
            /* no exchange on this file system: the old one moved aside, then put back on
               failure (a reader may find no directory for that instant, never a mix) */
            char *aside = temp_name(target);
            rc = aside && mkdtemp(aside) ? rename(target, aside) : -1;
            if (rc == 0 && rename(tmp, target) != 0) {
                e = errno;
                rename(aside, target);
                errno = e;
                rc = -1;
            } else if (rc == 0) {
                rename(aside, tmp); /* tmp names the old directory, as after an exchange */
            } else if (aside) {
                e = errno;
                rmdir(aside);
                errno = e;
            }
            free(aside);
        }
        e = rc ? errno : 0;
        if (rc)
            snprintf(why, len, "%s: replacing it: %s", dir, strerror(e));
        else
            retire_old(tmp, target, names, n_names);
    }
    if (rc) remove_temp_dir(tmp);
    free(tmp);
    free(target);
    errno = e;
    return rc;
}
