/* outfile.h: writing an output file safely (outfile.c) — the one writer every gpuval output
 * (--json, --csv, --md, --html, --junit, --save) goes through, and the probes run before any
 * work. */
#ifndef GV_OUTFILE_H
#define GV_OUTFILE_H

#include <stdio.h>
#include "core/gv.h" /* gv_err, gv_status */

/* Write path with emit(f, ctx) (which returns 0, or -1 on failure). Returns 0, or -1 with errno.
 *  - "-" is stdout; a write error on it (fflush, ferror) is a failure.
 *  - An empty path is refused (EINVAL); a directory too (EISDIR).
 *  - An existing path that is not a regular file (character device, FIFO, socket; also through
 *    a symlink) is refused (EINVAL): a FIFO nobody reads would block for ever, and a device is
 *    no place for a report. "-" is the way to standard output.
 *  - An existing regular file the user may not write (access W_OK fails, or no write bit at
 *    all, e.g. mode 0444 even for root) is refused (EACCES) and left as it is.
 *  - Otherwise a unique temporary ".NAME.XXXXXX" beside it (mkstemp: exclusive create, never
 *    follows a symlink) is written, flushed, fsync'ed and renamed over path: a reader never sees
 *    half a file, concurrent writers each rename a whole one (the last wins). On failure the
 *    temporary is removed and path is untouched; no other file is ever removed.
 *  - A symlink to a regular file is replaced by the new regular file (rename replaces the link
 *    itself); the file it pointed to keeps its content.
 * The new file gets the old file's permission bits, or 0666 less the umask. */
int gv_write_file(const char *path, int (*emit)(FILE *f, void *ctx), void *ctx);

/* Could gv_write_file write path? "-": yes. Empty: EINVAL. A directory: EISDIR. Another
 * non-regular file: EINVAL. A name longer than NAME_MAX: ENAMETOOLONG. An existing regular file:
 * access(W_OK) and a write bit (as gv_write_file). Then a temporary is made beside it and removed
 * at once, so that a directory that cannot take one (read-only, immutable, another file system's
 * refusal) is found now, not after the work. Leaves nothing behind. 0 or -1 with errno. */
int gv_probe_writable(const char *path);

/* Keep standard output for the documents a command writes to "-": fd 1 becomes a copy of
 * stderr (every table, line and warning printed to stdout from then on, by this process and
 * its children, goes to stderr) and gv_write_file("-") writes to the standard output the
 * process started with, so that it carries the documents alone (`check --json - | jq`). Done
 * once; 0, or -1 with errno. gv_probe_outputs calls it when a path is "-". */
int gv_stdout_for_documents(void);

/* Check the n output paths of a command (paths[i] NULL = not asked for; opts[i] its option name,
 * e.g. "--json") before any work: each must be writable, and no two may name the same file
 * (same string, or the same existing file; "-" may repeat). On the first problem returns -1
 * with e filled (GV_ST_BAD_INPUT and why); 0 when all is well. When a path is "-" it calls
 * gv_stdout_for_documents: standard output carries the documents alone. The command wing's
 * gv_probe_outputs (cmd/exit.h) prints e. */
int gv_outputs_check(int n, const char *const *paths, const char *const *opts, gv_error *e);

/* Do a and b name one file? The same string; or, both existing, the same device and inode; or,
 * neither existing, the same resolved directory (realpath) and last component ("s.json" and
 * "./s.json"). One existing and one not: no. */
#include <stdbool.h>
bool gv_same_file(const char *a, const char *b);

/* No output paths[i] may be one of the n_in input files (`report X.json --html X.json`): -1
 * with e filled (GV_ST_BAD_INPUT) when one is; 0 otherwise. */
int gv_not_inputs_check(int n, const char *const *paths, const char *const *opts, int n_in,
                        const char *const *inputs, gv_error *e);

/* The status of a write that failed with err: BAD_INPUT when the place cannot take a file
 * (EACCES, EPERM, EROFS, ENAMETOOLONG, ENOENT, ENOTDIR, EISDIR, ELOOP, EINVAL, and for a
 * directory ENOTEMPTY, EEXIST, EBUSY: the output named is bad), RUNTIME when the write itself
 * failed (ENOSPC, EIO, ...). */
gv_status gv_write_status(int err);

/* "could not write PATH: <strerror(errno)>" (what PATH is when it is not a regular file), for
 * a write of gv_write_file that failed, into e with gv_write_status(errno). */
void gv_write_failure(const char *path, gv_error *e);

/* Write the directory dir whole or not at all: fill(tmp, ctx) writes the new files into a fresh
 * temporary directory ".NAME.XXXXXX" beside dir (the same file system) and returns 0 or -1 with
 * errno; then
 *  - dir absent: the temporary is renamed to dir;
 *  - dir an existing directory: its other entries (regular files and symlinks whose names are
 *    not among the names[0..n) fill writes, e.g. a user's C.npy) are linked into the temporary,
 *    which then takes dir's place in one exchange (renameat2 RENAME_EXCHANGE; where the file
 *    system lacks it, two renames with the old one put back on failure); the old directory
 *    loses only what it had under those names and the links, and is removed when empty.
 * A reader of dir sees the old case or the new one, never a mix. On failure dir is untouched
 * and the temporary removed with all it holds. Refused (-1, errno, why filled): an empty path
 * (EINVAL); dir not a directory (ENOTDIR); dir the working directory or "/" (EBUSY: its name
 * cannot move); dir holding a subdirectory or another non-regular entry (ENOTEMPTY): not
 * gpuval's to move; one of names there that the user may not write (EACCES, as gv_write_file). why
 * (len >= 64) says what failed, naming the path. */
int gv_write_dir(const char *dir, const char *const *names, int n_names,
                 int (*fill)(const char *tmp, void *ctx), void *ctx, char *why, size_t len);

/* Could gv_write_dir write dir? The same refusals, and the parent directory must take a
 * temporary directory (one is made and removed). 0 or -1 with errno and why. */
int gv_probe_dir(const char *dir, char *why, size_t len);

#endif
