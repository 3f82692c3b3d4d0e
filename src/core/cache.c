/* cache.c: the oracle cache's store (cache.h): keyed entries on disk, checksummed, written
 * atomically, evicted least recently used first. What goes into it, and when, is the
 * reference's business (reference.c). */
#include "core/cache.h"

#include <assert.h>
#include <cblas.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fftw3.h>
#include <gnu/libc-version.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/hash.h"
#include "core/knobs.h"

#ifndef GV_VERSION
#define GV_VERSION "unknown"
#endif

/* ---- where and how much ------------------------------------------------------------------ */

int gv_cache_default_dir(char *buf, size_t len)
{
    const char *xdg = gv_env("XDG_CACHE_HOME"), *home = gv_env("HOME");
    int n;
    if (xdg && xdg[0] == '/') /* the XDG spec ignores a relative XDG_CACHE_HOME */
        n = snprintf(buf, len, "%s/gpuval", xdg);
    else if (home && home[0])
        n = snprintf(buf, len, "%s/.cache/gpuval", home);
    else
        return -1;
    return n > 0 && (size_t)n < len ? 0 : -1;
}

uint64_t gv_cache_max_bytes(void)
{
    const char *s = gv_knobs()->cache_max;
    if (!s || !s[0]) return GV_CACHE_DEFAULT_MAX;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    int shift = 0;
    switch (*end) {
    case 'k':
    case 'K':
        shift = 10;
        end++;
        break;
    case 'm':
    case 'M':
        shift = 20;
        end++;
        break;
    case 'g':
    case 'G':
        shift = 30;
        end++;
        break;
    case 't':
    case 'T':
        shift = 40;
        end++;
        break;
    default: break;
    }
    v = ldexp(v, shift);
    if (end == s || *end || errno || !(v >= 0) || v >= 0x1p63) {
        fprintf(stderr,
                "gpuval: GPUVAL_CACHE_MAX='%s' is not a size (bytes, or with K M G T); "
                "using 32G\n",
                s);
        return GV_CACHE_DEFAULT_MAX;
    }
    return (uint64_t)v;
}

int gv_cache_dir(char *buf, size_t len, char *why, size_t why_len)
{
    const char *xdg = gv_env("XDG_CACHE_HOME"), *home = gv_env("HOME");
    if (gv_cache_default_dir(buf, len) != 0) {
        snprintf(why, why_len, "no cache directory: set XDG_CACHE_HOME or HOME");
        return -1;
    }
    /* the part gpuval names below the user's base directory: "gpuval" or ".cache/gpuval" */
    size_t base = strlen(xdg && xdg[0] == '/' ? xdg : home);
    bool follow = gv_knobs()->cache_symlink;
    char p[4096];
    snprintf(p, sizeof p, "%s", buf);
    /* each existing prefix of the path, from the root down: a directory (a symlink above the
       base is the user's own layout and followed; below it, gpuval's part, only with the
       knob); the first missing one ends the walk, make_dirs creates the rest */
    for (size_t i = 1, n = strlen(p); i <= n; i++) {
        if (p[i] != '/' && p[i] != '\0') continue;
        char keep = p[i];
        p[i] = '\0';
        struct stat st;
        int rc = lstat(p, &st);
        if (rc != 0) {
            if (errno == ENOENT) break;
            snprintf(why, why_len, "%s: %s", p, strerror(errno));
            return -2;
        }
        if (S_ISLNK(st.st_mode)) {
            if (i > base && !follow) {
                snprintf(why, why_len,
                         "%s is a symbolic link; the cache never follows one it did not make "
                         "(set GPUVAL_CACHE_SYMLINK=1 to use it)",
                         p);
                return -2;
            }
            if (stat(p, &st) != 0) {
                if (errno == ENOENT) { /* a dangling link: nothing can be made below it */
                    snprintf(why, why_len, "%s is a dangling symbolic link", p);
                    return -2;
                }
                snprintf(why, why_len, "%s: %s", p, strerror(errno));
                return -2;
            }
        }
        if (!S_ISDIR(st.st_mode)) {
            snprintf(why, why_len, "%s is not a directory", p);
            return -2;
        }
        p[i] = keep;
    }
    return 0;
}

/* mkdir -p for an absolute path; 0 or -1. */
static int make_dirs(const char *dir)
{
    char path[4096];
    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path) return -1;
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(path, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(path, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

/* ---- entries ---------------------------------------------------------------------------- */

/* Header of an entry; then key, version, sizes[nbuf], the payload, the checksum. */
typedef struct entry_head {
    char magic[8];
    uint32_t key_len, version_len, nbuf, reserved;
} entry_head;

/* format 2: the payload's checksum is over chunk hashes (see move_chunks); format 1 entries are
   stale */
static const char MAGIC[8] = {'G', 'V', 'C', 'A', 'C', 'H', 'E', '2'};
enum { MAX_KEY = GV_CACHE_MAX_KEY, MAX_BUFS = 64 };

/* The file is named by the key and the version together: processes of one machine whose
   oracles differ (OPENBLAS_NUM_THREADS, an OpenBLAS core named or detected: the test programs
   beside the gpuval command, which re-executes itself with the core named) each keep their own
   entry of a case, where one file per key had each replace the other's as stale on every
   alternation. Entries of a version no process uses any more age out under the cap (LRU). */
static int entry_path(const char *dir, const char *key, const char *version, char *buf, size_t len)
{
    uint64_t h = gv_xxh64(key, strlen(key), gv_xxh64(version, strlen(version), 0));
    int n = snprintf(buf, len, "%s/%016" PRIx64 ".gvc", dir, h);
    return n > 0 && (size_t)n < len ? 0 : -1;
}

bool gv_cache_has(const char *dir, const char *key, const char *version)
{
    char path[4200];
    struct stat st;
    return entry_path(dir, key, version, path, sizeof path) == 0 && stat(path, &st) == 0 &&
           S_ISREG(st.st_mode);
}

/* The header, key, version and sizes as one block (allocated), its length in *len. */
static unsigned char *head_block(const char *key, const char *version, int nbuf,
                                 const size_t *sizes, size_t *len)
{
    entry_head h = {.key_len = (uint32_t)strlen(key),
                    .version_len = (uint32_t)strlen(version),
                    .nbuf = (uint32_t)nbuf};
    memcpy(h.magic, MAGIC, 8);
    *len = sizeof h + h.key_len + h.version_len + 8 * (size_t)nbuf;
    unsigned char *b = malloc(*len);
    if (!b) return NULL;
    unsigned char *p = b;
    memcpy(p, &h, sizeof h);
    p += sizeof h;
    memcpy(p, key, h.key_len);
    p += h.key_len;
    memcpy(p, version, h.version_len);
    p += h.version_len;
    for (int i = 0; i < nbuf; i++, p += 8) {
        uint64_t s = sizes[i];
        memcpy(p, &s, 8);
    }
    assert(p == b + *len); /* the block is exactly the length the payload's offset uses */
    return b;
}

/* ---- computing an entry once (cache.h) -------------------------------------------------- */

static _Thread_local int lock_held = 0; /* this thread holds a stripe: never nested */

int gv_cache_lock(const char *dir, const char *key)
{
    if (lock_held) return GV_CACHE_NOT_LOCKED;
    char path[4200];
    unsigned stripe = (unsigned)(gv_xxh64(key, strlen(key), 0) % GV_CACHE_LOCK_STRIPES);
    if (snprintf(path, sizeof path, "%s/lock-%02u", dir, stripe) >= (int)sizeof path)
        return GV_CACHE_NOT_LOCKED;
    int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 && errno == ENOENT && make_dirs(dir) == 0) /* made by the first put, else */
        fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return GV_CACHE_NOT_LOCKED; /* best effort, as the cache is */
    /* The holder writes its key's hash into the stripe: a process that finds the stripe held
       for another key does not wait. It waited before, for whatever its stripe's holder was
       computing: under check --jobs 4 a reduce.sum of 1000 elements showed 3 s of "oracle",
       its worker blocked behind a sibling's 4000 x 4000 solve. Read while the holder may be
       writing it, the hash can be stale: then this process waits when it need not, or
       computes an entry beside its holder, as it would without the lock (puts are atomic). */
    uint64_t want = gv_xxh64(key, strlen(key), 1), held = 0;
    int got;
    while ((got = flock(fd, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {
    }
    if (got != 0) {
        if (errno != EWOULDBLOCK ||
            (pread(fd, &held, sizeof held, 0) == (ssize_t)sizeof held && held != want)) {
            close(fd);
            return GV_CACHE_NOT_LOCKED;
        }
        while (flock(fd, LOCK_EX) != 0) {
            if (errno == EINTR) continue;
            close(fd);
            return GV_CACHE_NOT_LOCKED;
        }
    }
    (void)!pwrite(fd, &want, sizeof want, 0);
    lock_held = 1;
    return fd;
}

void gv_cache_unlock(int fd)
{
    if (fd < 0) return;
    flock(fd, LOCK_UN);
    close(fd);
    lock_held = 0;
}

static int read_all(int fd, void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = read(fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

static int write_all(int fd, const void *buf, size_t n)
{
    const unsigned char *p = buf;
    while (n > 0) {
        ssize_t put = write(fd, p, n > (1u << 30) ? (1u << 30) : n);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return -1;
        p += put;
        n -= (size_t)put;
    }
    return 0;
}

static int pread_all(int fd, void *buf, size_t n, off_t pos)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = pread(fd, p, n, pos);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        p += got;
        pos += got;
        n -= (size_t)got;
    }
    return 0;
}

static int pwrite_all(int fd, const void *buf, size_t n, off_t pos)
{
    const unsigned char *p = buf;
    while (n > 0) {
        ssize_t put = pwrite(fd, p, n, pos);
        if (put < 0 && errno == EINTR) continue;
        if (put <= 0) return -1;
        p += put;
        pos += put;
        n -= (size_t)put;
    }
    return 0;
}

/* The payload is moved and checksummed in chunks of GV_CACHE_CHUNK bytes on all cores: a warm
   run reads gigabytes of references (a 4096^2 gemm's ref and gauges are 384 MB), and one
   core's read and hash of them took longer than the product they replace. The checksum is
   XXH64 of the header, continued over the chunks' own XXH64 in order. */
typedef struct chunk {
    int buf;
    size_t off, len;
    off_t pos;
} chunk;

/* The chunks of nbuf buffers laid out from file offset start (allocated; count in *n). */
static chunk *chunk_list(int nbuf, const size_t *sizes, off_t start, int64_t *n)
{
    int64_t count = 0;
    uint64_t payload = 0;
    for (int i = 0; i < nbuf; i++) {
        count += (int64_t)((sizes[i] + GV_CACHE_CHUNK - 1) / GV_CACHE_CHUNK);
        payload += sizes[i];
    }
    chunk *v = malloc(sizeof *v * (size_t)(count > 0 ? count : 1));
    if (!v) return NULL;
    int64_t k = 0;
    off_t pos = start;
    for (int i = 0; i < nbuf; i++)
        for (size_t o = 0; o < sizes[i]; o += GV_CACHE_CHUNK) {
            size_t len = sizes[i] - o < GV_CACHE_CHUNK ? sizes[i] - o : GV_CACHE_CHUNK;
            assert(k < count); /* within the allocation */
            v[k++] = (chunk){i, o, len, pos};
            pos += (off_t)len;
        }
    /* as many chunks as counted (and allocated) above, tiling the payload with no gap: the
       checksum hashes one per chunk in order, and the reader's chunks must be the writer's */
    assert(k == count && (uint64_t)(pos - start) == payload);
    *n = count;
    return v;
}

/* Read (or write) the chunks at their places in fd and hash each into hash[]; 0, or -1 when a
   read came short (or a write failed). */
static int move_chunks(int fd, bool writing, void *const *bufs, const chunk *v, int64_t n,
                       uint64_t *hash, uint64_t total)
{
    int bad = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(| : bad) if (total >= 4 * GV_CACHE_CHUNK)
    for (int64_t k = 0; k < n; k++) {
        unsigned char *p = (unsigned char *)bufs[v[k].buf] + v[k].off;
        int fail =
            writing ? pwrite_all(fd, p, v[k].len, v[k].pos) : pread_all(fd, p, v[k].len, v[k].pos);
        if (fail)
            bad |= 1;
        else
            hash[k] = gv_xxh64(p, v[k].len, 0);
    }
    return bad ? -1 : 0;
}

/* An entry of ours that cannot be trusted: said once (it is removed, so it is not met again).
   Only called once the file's magic showed gpuval wrote it. */
static void reject(const char *path, const char *why)
{
    fprintf(stderr, "gpuval: oracle cache: %s: %s; recomputing\n", path, why);
    unlink(path);
}

/* Whether the file fd holds begins as an entry of any format gpuval wrote ("GVCACHE" and a
   format digit): the test before anything is removed. */
static bool has_magic(int fd)
{
    char m[8];
    return pread_all(fd, m, 8, 0) == 0 && memcmp(m, MAGIC, 7) == 0;
}

/* name in dirfd is a regular file (never a link) gpuval made: an entry (magic) or, for a
   temporary, one that is empty or begins with the magic (written header first). */
static bool ours_at(int dirfd, const char *name, bool temporary)
{
    int fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    bool yes = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
               ((temporary && st.st_size == 0) || has_magic(fd));
    close(fd);
    return yes;
}

int gv_cache_get(const char *dir, const char *key, const char *version, int nbuf, void *const *bufs,
                 const size_t *sizes)
{
    char path[4200];
    if (nbuf < 0 || nbuf > MAX_BUFS || entry_path(dir, key, version, path, sizeof path)) return 0;
    /* never through a link, never waiting on a FIFO: such a file is not an entry */
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return 0;
    size_t hlen;
    unsigned char *want = head_block(key, version, nbuf, sizes, &hlen);
    unsigned char *have = malloc(sizeof(entry_head) + MAX_KEY * 2 + 8 * MAX_BUFS);
    int rc = 0;
    struct stat st;
    entry_head h;
    const char *why = NULL;
    if (!want || !have || fstat(fd, &st) != 0) goto out;
    if (!S_ISREG(st.st_mode) || st.st_size < 8 || !has_magic(fd)) {
        /* not an entry gpuval wrote: a miss, and the file is left as it is */
        fprintf(stderr, "gpuval: oracle cache: %s is not a gpuval cache entry; left alone\n", path);
        goto out;
    }
    if (read_all(fd, &h, sizeof h) != 0) {
        why = "truncated (no header)";
        goto out;
    }
    if (memcmp(h.magic, MAGIC, 7) == 0 && h.magic[7] != MAGIC[7]) {
        why = "stale (another entry format)";
        goto out;
    }
    if (memcmp(h.magic, MAGIC, 8) != 0 || h.key_len > MAX_KEY || h.version_len > MAX_KEY ||
        h.nbuf > MAX_BUFS) {
        why = "corrupt (bad header)";
        goto out;
    }
    size_t have_len = sizeof h + h.key_len + h.version_len + 8 * (size_t)h.nbuf;
    memcpy(have, &h, sizeof h);
    if (read_all(fd, have + sizeof h, have_len - sizeof h) != 0) {
        why = "truncated (header)";
        goto out;
    }
    if (h.key_len != strlen(key) || memcmp(have + sizeof h, key, h.key_len) != 0)
        goto out; /* another key with the same file name: a plain miss, replaced on put */
    if (have_len != hlen || memcmp(have, want, hlen) != 0) {
        why = "stale (another oracle version, inputs or sizes)";
        goto out;
    }
    uint64_t payload = 0;
    for (int i = 0; i < nbuf; i++)
        payload += sizes[i];
    if ((uint64_t)st.st_size != hlen + payload + 8) {
        why = (uint64_t)st.st_size < hlen + payload + 8 ? "truncated" : "corrupt (too long)";
        goto out;
    }
    rc = -1;
    int64_t nch;
    chunk *ch = chunk_list(nbuf, sizes, (off_t)hlen, &nch);
    uint64_t *hash = ch ? malloc(sizeof *hash * (size_t)(nch > 0 ? nch : 1)) : NULL;
    if (!hash) {
        free(ch);
        rc = 0; /* no memory to read it: a miss, the entry stays */
        goto out;
    }
    int short_read = move_chunks(fd, false, bufs, ch, nch, hash, payload);
    uint64_t sum = gv_xxh64(hash, 8 * (size_t)nch, gv_xxh64(have, hlen, 0)), stored;
    free(ch);
    free(hash);
    if (short_read) {
        why = "truncated (payload)";
        goto out;
    }
    if (pread_all(fd, &stored, 8, (off_t)(hlen + payload)) != 0) {
        why = "truncated (checksum)";
        goto out;
    }
    if (stored != sum) {
        why = "corrupt (checksum mismatch)";
        goto out;
    }
    rc = 1;
    utimensat(AT_FDCWD, path, NULL, 0); /* used now: last in line for eviction */
out:
    if (why) {
        reject(path, why);
        rc = -1;
    }
    close(fd);
    free(want);
    free(have);
    return rc;
}

bool gv_cache_worth(double oracle_ms, uint64_t bytes, double floor_ms)
{
    return oracle_ms > floor_ms + (double)bytes / GV_CACHE_READ_BYTES_PER_MS;
}

int gv_cache_put(const char *dir, const char *key, const char *version, int nbuf,
                 const void *const *bufs, const size_t *sizes, uint64_t max_bytes)
{
    char path[4200], tmp[4200];
    if (nbuf < 0 || nbuf > MAX_BUFS || strlen(key) > MAX_KEY || strlen(version) > MAX_KEY)
        return GV_EINVAL;
    if (make_dirs(dir) != 0 || entry_path(dir, key, version, path, sizeof path)) return GV_EIO;
    size_t hlen;
    unsigned char *head = head_block(key, version, nbuf, sizes, &hlen);
    if (!head) return GV_ENOMEM;
    uint64_t total = hlen + 8;
    for (int i = 0; i < nbuf; i++)
        total += sizes[i];
    if (total > max_bytes) {
        free(head);
        return 1; /* larger than the whole cache: not kept */
    }
    snprintf(tmp, sizeof tmp, "%s/" GV_CACHE_TMP_PREFIX "XXXXXX", dir);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        free(head);
        return GV_EIO;
    }
    uint64_t payload = total - hlen - 8;
    int64_t nch;
    chunk *ch = chunk_list(nbuf, sizes, (off_t)hlen, &nch);
    uint64_t *hash = ch ? malloc(sizeof *hash * (size_t)(nch > 0 ? nch : 1)) : NULL;
    int bad = !hash || write_all(fd, head, hlen);
    if (!bad) bad = move_chunks(fd, true, (void *const *)bufs, ch, nch, hash, payload);
    if (!bad) {
        uint64_t sum = gv_xxh64(hash, 8 * (size_t)nch, gv_xxh64(head, hlen, 0));
        bad = pwrite_all(fd, &sum, 8, (off_t)(hlen + payload));
    }
    free(ch);
    free(hash);
    /* No fsync: an entry cut short by a crash fails its size or checksum and is recomputed;
       syncing gigabytes would cost every run seconds. */
    if (close(fd) != 0) bad = 1;
    /* the rename replaces what is at path: only an entry of ours, or nothing */
    int old = bad ? -1 : open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (old >= 0) {
        struct stat st;
        if (fstat(old, &st) != 0 || !S_ISREG(st.st_mode) || !has_magic(old)) bad = 1;
        close(old);
    } else if (!bad && errno != ENOENT) {
        bad = 1; /* a link (ELOOP) or another thing gpuval did not make */
    }
    if (!bad && rename(tmp, path) != 0) bad = 1;
    if (bad) unlink(tmp);
    free(head);
    /* Eviction lists the directory. An entry of at most 1/1024 of the cap (a judgement, a
       note, a small reference) evicts only every 64th time in a process: a check writing two
       thousand of them listed the directory two thousand times, while 64 of them overshoot
       the cap by at most 1/16 until the next listing. */
    static unsigned small_puts;
    bool small = total <= max_bytes / 1024;
    if (!bad && (!small || __atomic_fetch_add(&small_puts, 1, __ATOMIC_RELAXED) % 64 == 0))
        gv_cache_evict(dir, max_bytes);
    return bad ? GV_EIO : GV_OK;
}

/* ---- eviction and housekeeping ----------------------------------------------------------- */

typedef struct file_info {
    struct timespec mtime;
    uint64_t bytes;
    bool temporary;
    char name[64];
} file_info;

static int older_first(const void *a, const void *b)
{
    const file_info *x = a, *y = b;
    if (x->mtime.tv_sec != y->mtime.tv_sec) return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
    if (x->mtime.tv_nsec != y->mtime.tv_nsec) return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
    return strcmp(x->name, y->name);
}

static bool is_entry(const char *name)
{
    size_t n = strlen(name);
    return n == 20 && strspn(name, "0123456789abcdef") == 16 && strcmp(name + 16, ".gvc") == 0;
}

/* A temporary's name as mkstemp makes it from GV_CACHE_TMP_PREFIX "XXXXXX". */
static bool is_tmp(const char *name)
{
    size_t p = strlen(GV_CACHE_TMP_PREFIX);
    return strncmp(name, GV_CACHE_TMP_PREFIX, p) == 0 && strlen(name) == p + 6;
}

static bool stale_tmp(const file_info *f)
{
    return f->temporary && time(NULL) - f->mtime.tv_sec > GV_CACHE_TMP_MAX_AGE_S;
}

/* The entries and temporaries of dir that gpuval made (ours_at: regular files, never links,
   with the entry's magic), allocated, count in *n; NULL with *n = 0 when none or no memory. */
static file_info *list_entries(const char *dir, int *n)
{
    *n = 0;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0) close(dfd);
        return NULL;
    }
    int cap = 64;
    file_info *v = malloc(sizeof *v * (size_t)cap);
    struct dirent *e;
    while (v && (e = readdir(d))) {
        bool tmp = is_tmp(e->d_name);
        if (!tmp && !is_entry(e->d_name)) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            !ours_at(dirfd(d), e->d_name, tmp))
            continue;
        if (*n == cap) {
            file_info *grown = realloc(v, sizeof *v * (size_t)(cap *= 2));
            if (!grown) {
                free(v);
                v = NULL;
                break;
            }
            v = grown;
        }
        v[*n].mtime = st.st_mtim;
        v[*n].bytes = (uint64_t)st.st_size;
        v[*n].temporary = tmp;
        snprintf(v[*n].name, sizeof v[*n].name, "%s", e->d_name);
        (*n)++;
    }
    closedir(d);
    if (!v) *n = 0;
    return v;
}

/* Remove dir/name when it is still a file of ours (checked again just before). */
static bool remove_ours(const char *dir, const file_info *f)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dfd < 0) return false;
    bool gone = ours_at(dfd, f->name, f->temporary) && unlinkat(dfd, f->name, 0) == 0;
    close(dfd);
    return gone;
}

/* Whether dir may need eviction: the bytes of every regular file named as an entry or a
   temporary are over max_bytes, or a temporary is old enough to go. Only names and sizes
   (fstatat), no file opened: an upper bound on what list_entries counts, which opens each file
   to see it is ours. A put ran list_entries on the whole directory every time, so a cold run
   opened each entry once per entry stored after it (600 entries: 180 thousand opens and
   reads; 600 puts of small entries took 0.75 s of CPU on a 2-core machine). */
static bool may_evict(const char *dir, uint64_t max_bytes)
{
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (!d) {
        if (dfd >= 0) close(dfd);
        return true; /* the full listing decides (and finds nothing) */
    }
    uint64_t total = 0;
    bool old_tmp = false;
    struct dirent *e;
    while (!old_tmp && total <= max_bytes && (e = readdir(d))) {
        bool tmp = is_tmp(e->d_name);
        if (!tmp && !is_entry(e->d_name)) continue;
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
            continue;
        total += (uint64_t)st.st_size;
        old_tmp = tmp && time(NULL) - st.st_mtim.tv_sec > GV_CACHE_TMP_MAX_AGE_S;
    }
    closedir(d);
    return old_tmp || total > max_bytes;
}

int gv_cache_evict(const char *dir, uint64_t max_bytes)
{
    if (!may_evict(dir, max_bytes)) return 0;
    int n, removed = 0;
    file_info *v = list_entries(dir, &n);
    uint64_t total = 0;
    /* temporaries a killed run left (older than GV_CACHE_TMP_MAX_AGE_S) go first; those being
       written count against the cap with the entries */
    for (int i = 0; i < n; i++) {
        if (stale_tmp(&v[i]) && remove_ours(dir, &v[i])) {
            removed++;
            v[i].bytes = 0;
        }
        total += v[i].bytes;
    }
    if (total > max_bytes) {
        qsort(v, (size_t)n, sizeof *v, older_first);
        for (int i = 0; i < n && total > max_bytes; i++) {
            if (v[i].temporary) continue; /* another run's, being written */
            if (remove_ours(dir, &v[i])) removed++;
            total -= v[i].bytes; /* gone, or removed by another run meanwhile */
        }
    }
    free(v);
    return removed;
}

void gv_cache_usage_of(const char *dir, gv_cache_usage *u)
{
    int n;
    file_info *v = list_entries(dir, &n);
    memset(u, 0, sizeof *u);
    for (int i = 0; i < n; i++) {
        if (v[i].temporary) {
            u->temporaries++;
            u->temporary_bytes += v[i].bytes;
            u->stale_temporaries += stale_tmp(&v[i]);
        } else {
            u->entries++;
            u->entry_bytes += v[i].bytes;
        }
    }
    free(v);
}

void gv_cache_stats(const char *dir, int *entries, uint64_t *bytes)
{
    gv_cache_usage u;
    gv_cache_usage_of(dir, &u);
    *entries = u.entries;
    *bytes = u.entry_bytes;
}

int gv_cache_clear(const char *dir)
{
    int n, removed = 0;
    file_info *v = list_entries(dir, &n);
    for (int i = 0; i < n; i++)
        if ((!v[i].temporary || stale_tmp(&v[i])) && remove_ours(dir, &v[i])) removed++;
    free(v);
    return removed;
}

int gv_cache_sweep(const char *dir)
{
    int n, removed = 0;
    file_info *v = list_entries(dir, &n);
    for (int i = 0; i < n; i++)
        if (stale_tmp(&v[i]) && remove_ours(dir, &v[i])) removed++;
    free(v);
    return removed;
}
