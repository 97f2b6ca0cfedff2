/*
 * lhp.c - lock-holder-preemption micro-benchmark (slicelab).
 *
 * T worker threads contend for one user-space spinlock; each holds it for a
 * critical section of about L ns of CPU work, then works L' ns outside it
 * (--think-ns, default L). H hog threads burn CPU without ever taking the lock,
 * so that the run queue is oversubscribed and holders get preempted.
 *
 * --extension on: every holder asks for a scheduler time slice extension
 * (Linux 7.0+ rseq slice_ctrl, Documentation/userspace-api/rseq.rst) around its
 * critical section: request = 1 after acquiring, request = 0 after releasing,
 * rseq_slice_yield(2) when the kernel set "granted".
 * --extension simulate: the same loads and stores on a thread-local area that
 * is not registered with the kernel: what the protocol costs in user space,
 * measurable on kernels without the feature.
 * --extension off: neither; the hooks are there but find the switch off
 * (like the patched PostgreSQL with slice_extension = off).
 * --extension none: no hook code at all (like unpatched PostgreSQL).
 *
 * Output: one JSON object on stdout. Exit status 0; 3 when --extension on was
 * asked for and the kernel cannot do it (the JSON says why); 2 on bad usage.
 *
 * Build: cc -O2 -pthread [-static] -o lhp lhp.c
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#define HAVE_GLIBC_RSEQ 1
#endif

/* Linux 7.0 uapi (include/uapi/linux/prctl.h, rseq.h), for older headers. */
#ifndef PR_RSEQ_SLICE_EXTENSION
#define PR_RSEQ_SLICE_EXTENSION 79
#define PR_RSEQ_SLICE_EXTENSION_GET 1
#define PR_RSEQ_SLICE_EXTENSION_SET 2
#define PR_RSEQ_SLICE_EXT_ENABLE 0x01
#endif
#ifndef __NR_rseq_slice_yield
#define __NR_rseq_slice_yield 471
#endif
#ifndef AT_RSEQ_FEATURE_SIZE
#define AT_RSEQ_FEATURE_SIZE 27
#endif
#ifndef AT_RSEQ_ALIGN
#define AT_RSEQ_ALIGN 28
#endif
#ifndef RSEQ_SIG
#define RSEQ_SIG 0x53053053
#endif
#define ENOTSUPP_KERNEL 524
#define SLICE_CTRL_OFFSET 28    /* offsetof(struct rseq, slice_ctrl) */
#define SLICE_FEATURE_SIZE 33   /* offsetof(struct rseq, end) with slice_ctrl */
#define AREA_SIZE 64

enum mode { MODE_OFF, MODE_ON, MODE_SIMULATE, MODE_NONE };

static struct {
    int threads, hogs;
    long cs_ns, think_ns;
    double duration;
    enum mode mode;
    int hold_times;
} cfg = { 4, 0, 1000, -1, 5.0, MODE_OFF, 1 };

static volatile int stop_flag;
static volatile int start_flag;
static volatile int the_lock __attribute__((aligned(64)));
static double loops_per_ns;

/* per-thread rseq area used when glibc's does not cover slice_ctrl */
static __thread uint8_t own_area[AREA_SIZE] __attribute__((aligned(AREA_SIZE)));

/* feature probe result */
static struct {
    int available;
    const char *area;           /* "glibc", "own", "thread-local (simulated)", "none" */
    unsigned long feature_size, align;
    long rseq_size;
    char reason[320];
    const char *err;            /* errno name of the failing call */
} feat = { 0, "none", 0, 0, -1, "", NULL };

/* hold-time histogram: 64 octaves x 32 linear sub-buckets */
#define SUB 32
#define NBUCKETS (64 * SUB)

struct worker {
    pthread_t tid;
    int index;
    uint64_t iterations;
    uint64_t requests, grants, yields, revoked;
    long nivcsw, nvcsw;
    uint64_t max_hold;
    double sum_hold;
    uint64_t *hist;
    double elapsed_ns;
    double cpu_ns;
    int setup_error;
    char setup_msg[200];
} __attribute__((aligned(64)));

struct hog {
    pthread_t tid;
    long nivcsw;
    uint64_t loops;
} __attribute__((aligned(64)));

static inline uint64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* CPU work of about n loop iterations that the compiler cannot remove */
static inline void spin_work(uint64_t n)
{
    for (volatile uint64_t i = 0; i < n; i++)
        ;
}

/*
 * Loop iterations per ns. On a busy machine a measurement can include time
 * the thread was preempted, which makes the rate look lower: take the best of
 * many short measurements.
 */
static void calibrate(void)
{
    uint64_t n = 1000;
    while (1) {
        uint64_t t0 = now_ns();
        spin_work(n);
        if (now_ns() - t0 > 500000)
            break;
        n *= 2;
    }
    double best = 0;
    for (int i = 0; i < 40; i++) {
        uint64_t t0 = now_ns();
        spin_work(n);
        double rate = (double)n / (double)(now_ns() - t0);
        if (rate > best)
            best = rate;
    }
    loops_per_ns = best;
}

static inline void lock_acquire(volatile int *l)
{
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(l, __ATOMIC_RELAXED))
            cpu_relax();
}

static inline void lock_release(volatile int *l)
{
    __atomic_store_n(l, 0, __ATOMIC_RELEASE);
}

static int bucket_of(uint64_t v)
{
    if (v < SUB)
        return (int)v;
    int msb = 63 - __builtin_clzll(v);          /* >= 5 */
    int shift = msb - 5;                         /* keep 5 bits below the msb */
    int sub = (int)((v >> shift) & (SUB - 1));
    return (shift + 1) * SUB + sub;
}

/* lower bound of a bucket, and its upper bound (exclusive) */
static void bucket_range(int b, double *lo, double *hi)
{
    if (b < SUB) {
        *lo = b;
        *hi = b + 1;
        return;
    }
    int shift = b / SUB - 1;
    int sub = b % SUB;
    double base = (double)((uint64_t)(SUB + sub) << shift);
    *lo = base;
    *hi = base + (double)(1ull << shift);
}

static const char *errno_name(int e)
{
    switch (e) {
    case EINVAL: return "EINVAL";
    case ENXIO: return "ENXIO";
    case ENOSYS: return "ENOSYS";
    case EPERM: return "EPERM";
    case EBUSY: return "EBUSY";
    case EFAULT: return "EFAULT";
    case ENOTSUPP_KERNEL: return "ENOTSUPP";
    default: return "other";
    }
}

static void *thread_pointer(void)
{
    void *tp;
#if defined(__x86_64__)
    __asm__("mov %%fs:0, %0" : "=r"(tp));
#elif defined(__aarch64__)
    __asm__("mrs %0, tpidr_el0" : "=r"(tp));
#else
    tp = __builtin_thread_pointer();
#endif
    return tp;
}

/* process-wide checks, done once in main */
static void probe_process(void)
{
    feat.feature_size = getauxval(AT_RSEQ_FEATURE_SIZE);
    feat.align = getauxval(AT_RSEQ_ALIGN);
#ifdef HAVE_GLIBC_RSEQ
    feat.rseq_size = (long)__rseq_size;
#endif
    if (cfg.mode != MODE_ON)
        return;
    errno = 0;
    int r = prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0);
    if (r < 0) {
        int e = errno;
        feat.err = errno_name(e);
        snprintf(feat.reason, sizeof feat.reason,
                 "prctl(PR_RSEQ_SLICE_EXTENSION, GET) failed with %s: %s",
                 feat.err,
                 e == EINVAL ? "the kernel has no rseq time slice extension (needs Linux 7.0+ built with CONFIG_RSEQ_SLICE_EXTENSION)"
                             : strerror(e));
        return;
    }
    if (feat.feature_size < SLICE_FEATURE_SIZE) {
        snprintf(feat.reason, sizeof feat.reason,
                 "AT_RSEQ_FEATURE_SIZE is %lu, below %d: the kernel's struct rseq has no slice_ctrl",
                 feat.feature_size, SLICE_FEATURE_SIZE);
        return;
    }
    if (feat.rseq_size > 0 && feat.rseq_size < SLICE_FEATURE_SIZE) {
        feat.err = "ENOTSUPP";
        snprintf(feat.reason, sizeof feat.reason,
                 "glibc's rseq registration does not cover slice_ctrl (__rseq_size is %ld): legacy rseq mode, prctl would fail with ENOTSUPP; "
                 "run with GLIBC_TUNABLES=glibc.pthread.rseq=0 (slicelab micro sets it) so that each thread registers its own",
                 feat.rseq_size);
        return;
    }
    if (feat.feature_size > AREA_SIZE || feat.align > AREA_SIZE) {
        snprintf(feat.reason, sizeof feat.reason,
                 "the kernel wants an rseq area of %lu bytes aligned to %lu; this program reserves %d",
                 feat.feature_size, feat.align, AREA_SIZE);
        return;
    }
    feat.available = 1;
    feat.area = feat.rseq_size >= SLICE_FEATURE_SIZE ? "glibc" : "own";
}

/* per worker thread: returns the slice_ctrl address, or NULL (msg says why) */
static volatile uint8_t *thread_setup(struct worker *w)
{
    if (cfg.mode == MODE_SIMULATE)
        return own_area + SLICE_CTRL_OFFSET;
    if (cfg.mode == MODE_OFF || cfg.mode == MODE_NONE)
        return NULL;
    uint8_t *area;
#ifdef HAVE_GLIBC_RSEQ
    if (feat.rseq_size >= SLICE_FEATURE_SIZE)
        area = (uint8_t *)thread_pointer() + __rseq_offset;
    else
#endif
    {
        if (syscall(__NR_rseq, own_area, AREA_SIZE, 0, RSEQ_SIG) != 0) {
            int e = errno;
            w->setup_error = 1;
            snprintf(w->setup_msg, sizeof w->setup_msg, "rseq registration failed with %s (%s)",
                     errno_name(e), strerror(e));
            return NULL;
        }
        area = own_area;
    }
    if (prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0) != 0) {
        int e = errno;
        w->setup_error = 1;
        snprintf(w->setup_msg, sizeof w->setup_msg, "prctl(PR_RSEQ_SLICE_EXTENSION, SET, ENABLE) failed with %s: %s",
                 errno_name(e),
                 e == ENXIO ? "no rseq area registered for this thread"
                 : e == ENOTSUPP_KERNEL ? "disabled on the kernel command line (rseq_slice_ext=) or legacy 32-byte rseq registration"
                 : e == EINVAL ? "not available or invalid arguments"
                 : strerror(e));
        return NULL;
    }
    return area + SLICE_CTRL_OFFSET;
}

/*
 * The hooks, shaped like the PostgreSQL patch's (storage/slice_ext.h): after
 * acquiring, test a process-wide mask and, when set, count the nesting depth
 * and set the request; after releasing, test the depth, clear the request
 * and go out of line only when the kernel granted (then yield) or revoked
 * an extension, or every 64 requests (PostgreSQL flushes its counters).
 */
static int ext_mask;                        /* like SliceExt.mask */
static __thread int t_depth;                /* like SliceExt.depth */
static __thread volatile uint8_t *t_ctrl;   /* like SliceExt.request */
static __thread int t_until_flush = 64;     /* like SliceExt.until_flush */

#define compiler_barrier() __asm__ __volatile__("" ::: "memory")

/* out of line: granted (yield), granted and revoked, or time to flush counters */
static __attribute__((noinline)) void relinquish(struct worker *w, uint8_t requested)
{
    volatile uint8_t *ctrl = t_ctrl;
    if (ctrl[1]) {                          /* granted */
        w->grants++;
        if (cfg.mode == MODE_ON && syscall(__NR_rseq_slice_yield) == 1)
            w->yields++;
    } else if (!requested) {
        w->revoked++;                       /* granted, then revoked */
    }
    if (t_until_flush <= 0)
        t_until_flush = 64;                 /* PostgreSQL adds its counters to shared memory here */
}

static inline __attribute__((always_inline)) void hook_acquired(struct worker *w)
{
    compiler_barrier();                     /* PostgreSQL's TAS is one */
    if (__builtin_expect(ext_mask, 0)) {
        if (t_depth++ == 0) {
            w->requests++;
            t_ctrl[0] = 1;                  /* request */
            compiler_barrier();
        }
    }
}

static inline __attribute__((always_inline)) void hook_released(struct worker *w)
{
    if (__builtin_expect(t_depth > 0, 0)) {
        if (--t_depth == 0) {
            volatile uint8_t *ctrl = t_ctrl;
            compiler_barrier();
            uint8_t requested = ctrl[0];
            ctrl[0] = 0;
            if (__builtin_expect(ctrl[1] != 0 || requested == 0 || --t_until_flush <= 0, 0))
                relinquish(w, requested);
        }
    }
}

/* the measured loop; HOOKED is a constant, so "none" has no hook code at all */
static inline __attribute__((always_inline)) void worker_loop(struct worker *w, const int hooked)
{
    uint64_t cs_loops = (uint64_t)(cfg.cs_ns * loops_per_ns);
    uint64_t think_loops = (uint64_t)(cfg.think_ns * loops_per_ns);
    const int timing = cfg.hold_times;

    while (!stop_flag) {
        lock_acquire(&the_lock);
        if (hooked)
            hook_acquired(w);
        uint64_t t0 = timing ? now_ns() : 0;
        spin_work(cs_loops);
        uint64_t t1 = timing ? now_ns() : 0;
        lock_release(&the_lock);
        if (hooked)
            hook_released(w);
        if (timing) {
            uint64_t hold = t1 - t0;
            w->hist[bucket_of(hold)]++;
            w->sum_hold += (double)hold;
            if (hold > w->max_hold)
                w->max_hold = hold;
        }
        w->iterations++;
        spin_work(think_loops);
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    volatile uint8_t *ctrl = thread_setup(w);
    struct rusage ru0, ru1;

    if (cfg.mode == MODE_ON && ctrl == NULL)
        return NULL;
    t_ctrl = ctrl;
    while (!start_flag)
        cpu_relax();
    getrusage(RUSAGE_THREAD, &ru0);
    uint64_t t_start = now_ns();
    uint64_t c_start = thread_cpu_ns();
    if (cfg.mode == MODE_NONE)
        worker_loop(w, 0);
    else
        worker_loop(w, 1);
    w->cpu_ns = (double)(thread_cpu_ns() - c_start);
    w->elapsed_ns = (double)(now_ns() - t_start);
    getrusage(RUSAGE_THREAD, &ru1);
    w->nivcsw = ru1.ru_nivcsw - ru0.ru_nivcsw;
    w->nvcsw = ru1.ru_nvcsw - ru0.ru_nvcsw;
    return NULL;
}

static void *hog_main(void *arg)
{
    struct hog *h = arg;
    struct rusage ru0, ru1;
    while (!start_flag)
        cpu_relax();
    getrusage(RUSAGE_THREAD, &ru0);
    uint64_t n = 0;
    while (!stop_flag) {
        spin_work(1000);
        n++;
    }
    getrusage(RUSAGE_THREAD, &ru1);
    h->nivcsw = ru1.ru_nivcsw - ru0.ru_nivcsw;
    h->loops = n;
    return NULL;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: lhp [--threads T] [--hogs H] [--cs-ns L] [--think-ns N] [--duration S]\n"
            "           [--extension off|on|simulate|none] [--no-hold-times]\n");
    exit(2);
}

static long parse_long(const char *name, const char *v, long min)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || x < min) {
        fprintf(stderr, "lhp: --%s expects an integer >= %ld, got \"%s\"\n", name, min, v);
        exit(2);
    }
    return x;
}

static void json_string(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            printf("\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            printf("\\u%04x", *s);
        else
            putchar(*s);
    }
    putchar('"');
}

static double percentile(const uint64_t *hist, uint64_t total, double q)
{
    if (total == 0)
        return 0;
    double target = q * (double)total;
    uint64_t seen = 0;
    for (int b = 0; b < NBUCKETS; b++) {
        if (hist[b] == 0)
            continue;
        if ((double)(seen + hist[b]) >= target) {
            double lo, hi;
            bucket_range(b, &lo, &hi);
            double frac = (target - (double)seen) / (double)hist[b];
            return lo + frac * (hi - lo);
        }
        seen += hist[b];
    }
    return 0;
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-hold-times")) { cfg.hold_times = 0; continue; }
        if (!v) usage();
        if (!strcmp(a, "--threads")) cfg.threads = (int)parse_long("threads", v, 1);
        else if (!strcmp(a, "--hogs")) cfg.hogs = (int)parse_long("hogs", v, 0);
        else if (!strcmp(a, "--cs-ns")) cfg.cs_ns = parse_long("cs-ns", v, 0);
        else if (!strcmp(a, "--think-ns")) cfg.think_ns = parse_long("think-ns", v, 0);
        else if (!strcmp(a, "--duration")) {
            cfg.duration = atof(v);
            if (!(cfg.duration > 0)) { fprintf(stderr, "lhp: --duration expects seconds > 0, got \"%s\"\n", v); exit(2); }
        } else if (!strcmp(a, "--extension")) {
            if (!strcmp(v, "off")) cfg.mode = MODE_OFF;
            else if (!strcmp(v, "on")) cfg.mode = MODE_ON;
            else if (!strcmp(v, "simulate")) cfg.mode = MODE_SIMULATE;
            else if (!strcmp(v, "none")) cfg.mode = MODE_NONE;
            else { fprintf(stderr, "lhp: --extension expects off, on, simulate or none, got \"%s\"\n", v); exit(2); }
        } else usage();
        i++;
    }
    if (cfg.think_ns < 0)
        cfg.think_ns = cfg.cs_ns;

    probe_process();
    ext_mask = cfg.mode == MODE_ON || cfg.mode == MODE_SIMULATE;
    if (cfg.mode == MODE_SIMULATE)
        feat.area = "thread-local (simulated, not registered)";

    int exit_status = 0;
    struct worker *workers = NULL;
    struct hog *hogs = NULL;
    uint64_t *hist = calloc(NBUCKETS, sizeof *hist);
    uint64_t t0 = 0, t1 = 0;

    if (cfg.mode == MODE_ON && !feat.available) {
        exit_status = 3;
    } else {
        calibrate();
        workers = aligned_alloc(64, sizeof *workers * (size_t)cfg.threads);
        hogs = aligned_alloc(64, sizeof *hogs * (size_t)(cfg.hogs > 0 ? cfg.hogs : 1));
        memset(workers, 0, sizeof *workers * (size_t)cfg.threads);
        memset(hogs, 0, sizeof *hogs * (size_t)(cfg.hogs > 0 ? cfg.hogs : 1));
        for (int i = 0; i < cfg.threads; i++) {
            workers[i].index = i;
            workers[i].hist = calloc(NBUCKETS, sizeof(uint64_t));
            pthread_create(&workers[i].tid, NULL, worker_main, &workers[i]);
        }
        for (int i = 0; i < cfg.hogs; i++)
            pthread_create(&hogs[i].tid, NULL, hog_main, &hogs[i]);
        usleep(50000);
        t0 = now_ns();
        start_flag = 1;
        struct timespec d = { (time_t)cfg.duration, (long)((cfg.duration - (double)(time_t)cfg.duration) * 1e9) };
        while (nanosleep(&d, &d) != 0 && errno == EINTR)
            ;
        stop_flag = 1;
        for (int i = 0; i < cfg.threads; i++)
            pthread_join(workers[i].tid, NULL);
        t1 = now_ns();
        for (int i = 0; i < cfg.hogs; i++)
            pthread_join(hogs[i].tid, NULL);
        for (int i = 0; i < cfg.threads; i++) {
            if (workers[i].setup_error && exit_status == 0) {
                exit_status = 3;
                feat.available = 0;
                snprintf(feat.reason, sizeof feat.reason, "%s", workers[i].setup_msg);
                feat.err = strstr(workers[i].setup_msg, "ENXIO") ? "ENXIO"
                         : strstr(workers[i].setup_msg, "ENOTSUPP") ? "ENOTSUPP"
                         : strstr(workers[i].setup_msg, "EINVAL") ? "EINVAL" : "other";
            }
        }
    }

    static const char *mode_names[] = { "off", "on", "simulate", "none" };
    printf("{\"program\":\"slicelab-lhp\",\"version\":1,");
    printf("\"config\":{\"threads\":%d,\"hogs\":%d,\"csNs\":%ld,\"thinkNs\":%ld,\"durationS\":%g,\"extension\":\"%s\",\"holdTimes\":%s},",
           cfg.threads, cfg.hogs, cfg.cs_ns, cfg.think_ns, cfg.duration, mode_names[cfg.mode], cfg.hold_times ? "true" : "false");
    printf("\"feature\":{\"available\":%s,\"area\":", cfg.mode == MODE_OFF || cfg.mode == MODE_NONE ? "null" : feat.available || cfg.mode == MODE_SIMULATE ? "true" : "false");
    json_string(feat.area);
    printf(",\"glibcRseqSize\":%ld,\"auxvFeatureSize\":%lu,\"auxvAlign\":%lu,\"error\":", feat.rseq_size, feat.feature_size, feat.align);
    if (feat.err) json_string(feat.err); else printf("null");
    printf(",\"reason\":");
    if (feat.reason[0]) json_string(feat.reason); else printf("null");
    printf("},");
    if (exit_status != 0 || workers == NULL) {
        printf("\"results\":null}\n");
        return exit_status;
    }
    uint64_t iters = 0, req = 0, gr = 0, yi = 0, rv = 0, maxh = 0;
    long niv = 0, nv = 0, hog_niv = 0;
    double sumh = 0, per_iter = 0, cpu_per_iter = 0;
    for (int i = 0; i < cfg.threads; i++) {
        struct worker *w = &workers[i];
        iters += w->iterations;
        req += w->requests; gr += w->grants; yi += w->yields; rv += w->revoked;
        niv += w->nivcsw; nv += w->nvcsw;
        sumh += w->sum_hold;
        if (w->max_hold > maxh) maxh = w->max_hold;
        for (int b = 0; b < NBUCKETS; b++) hist[b] += w->hist[b];
        if (w->iterations > 0) {
            per_iter += w->elapsed_ns / (double)w->iterations;
            cpu_per_iter += w->cpu_ns / (double)w->iterations;
        }
    }
    for (int i = 0; i < cfg.hogs; i++) hog_niv += hogs[i].nivcsw;
    double elapsed = (double)(t1 - t0) / 1e9;
    printf("\"results\":{\"criticalSections\":%llu,\"elapsedS\":%.6f,\"throughputPerS\":%.3f,\"nsPerIteration\":%.4f,\"cpuNsPerIteration\":%.4f,",
           (unsigned long long)iters, elapsed, (double)iters / elapsed, per_iter / cfg.threads, cpu_per_iter / cfg.threads);
    printf("\"loopsPerNs\":%.6f,", loops_per_ns);
    if (cfg.hold_times)
        printf("\"holdNs\":{\"mean\":%.1f,\"p50\":%.1f,\"p99\":%.1f,\"p999\":%.1f,\"max\":%llu},",
               iters ? sumh / (double)iters : 0, percentile(hist, iters, 0.5), percentile(hist, iters, 0.99),
               percentile(hist, iters, 0.999), (unsigned long long)maxh);
    else
        printf("\"holdNs\":null,");
    printf("\"involuntaryCtxSwitches\":{\"workers\":%ld,\"hogs\":%ld},\"voluntaryCtxSwitches\":%ld,", niv, hog_niv, nv);
    printf("\"requests\":%llu,\"grants\":%llu,\"yields\":%llu,\"revoked\":%llu}}\n",
           (unsigned long long)req, (unsigned long long)gr, (unsigned long long)yi, (unsigned long long)rv);
    return 0;
}
