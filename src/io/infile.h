/* infile.h: opening an input file (infile.c) — a run file, a baseline, a case file, an .npy
 * array — only when it is a regular file. A FIFO nobody writes would block open() and read()
 * for ever, a directory or a device is no input: each is refused with a message that says what
 * the path is, never waited on. */
#ifndef GV_INFILE_H
#define GV_INFILE_H

#include <jansson.h>
#include <stdio.h>

/* path opened read-only when it is a regular file (through symlinks). The open itself cannot
 * block (O_NONBLOCK, cleared after the check). Returns a stream, or NULL with errno set and
 * why (len >= 64) saying what is wrong: strerror(errno), or "a FIFO, not a regular file" (errno
 * EINVAL) and the like for a directory (EISDIR), a device or a socket. */
FILE *gv_fopen_regular(const char *path, char *why, size_t len);

/* json_load_file for a regular file only: NULL with err->text saying why ("unable to open PATH:
 * WHY", err->line -1, as jansson words and leaves it for a file it could not open). */
json_t *gv_json_load_regular(const char *path, size_t flags, json_error_t *err);

/* What a file of mode st_mode is, for a message: "a FIFO", "a directory", ... */
const char *gv_file_kind(unsigned mode);

#endif
