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
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <fcntl.h>
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
enum pages { PAGES_4K, PAGES_HUGETLB, PAGES_THP };
enum backoff { BACKOFF_SPIN, BACKOFF_SLOCK };

static struct {
    int threads, hogs;
    long cs_ns, think_ns;
    double duration;
    enum mode mode;
    int hold_times;
    /* --fault-in-cs: every fault_every-th critical section writes to the next
     * page of a shared mapping that no thread has touched yet */
    int fault_in_cs;
    long fault_every;
    enum pages pages;
    long region_mib;
    int prefault;
    enum backoff backoff;
    int inner_locks;            /* nested uncontended acquires inside each hold */
    long jitter_pct;            /* section and think lengths vary by +-jitter_pct % */
    unsigned long seed;
    const char *hold_log;       /* holds of at least log_min_ns, one line each */
    long log_min_ns;
    int pin_cpus;               /* --pin-cpus N: the process on the N highest-numbered allowed CPUs (0: as started) */
} cfg = { 4, 0, 1000, -1, 5.0, MODE_OFF, 1, 0, 1, PAGES_4K, 256, 0, BACKOFF_SPIN, 0, 0, 1, NULL, 20000, 0 };
static int pinned_cpus[CPU_SETSIZE];
static int npinned;

static volatile int stop_flag;
static volatile int start_flag;
static volatile int the_lock __attribute__((aligned(64)));
static volatile int inner_lock __attribute__((aligned(64)));
static double loops_per_ns;

/* the shared region of --fault-in-cs (a memfd: its pages exist in the page
 * cache before the run, so a first touch is a minor fault that maps an existing
 * page, like a backend's first touch of PostgreSQL's shared memory) */
static uint8_t *region;
static size_t region_pages;     /* in 4 KB units */
static size_t next_page;        /* protected by the_lock */
static int region_exhausted;    /* set under the_lock */

/* per-thread rseq area used when glibc's does not cover slice_ctrl */
static __thread uint8_t own_area[AREA_SIZE] __attribute__((aligned(AREA_SIZE)));
/* --extension simulate writes here: never registered with the kernel */
static __thread uint8_t sim_area[AREA_SIZE] __attribute__((aligned(AREA_SIZE)));

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

struct hold_rec { uint64_t start, end; uint32_t flags; };
#define HOLD_GRANTED 1u         /* granted was set at release: a grant covered the hold's end */
#define HOLD_DROPPED 2u         /* request found cleared at release without a grant */
#define HOLD_TOUCHED 4u         /* the hold wrote to a fresh page of the region */
#define HOLD_REARMED 8u         /* an inner acquire re-armed the request */
#define HOLD_LOG_MAX 200000

struct worker {
    pthread_t tid;
    int index;
    int os_tid;
    uint64_t iterations;
    uint64_t requests, grants, yields, revoked;
    uint64_t dropped, rearmed, touched;
    long minflt, majflt;
    uint64_t *wait_hist;
    double sum_wait;
    uint64_t max_wait;
    struct hold_rec *log;
    size_t nlog, log_lost;
    uint64_t rng;
    long nivcsw, nvcsw;
    uint64_t max_hold;
    double sum_hold;
    uint64_t *hist;
    /* first touches (--fault-in-cs, with hold times): the clock reads around
     * the store, and the holds that made one */
    uint64_t *touch_hist, *touched_hold_hist, *untouched_hold_hist;
    uint64_t touch_max, touch_n;
    double touch_sum, touched_hold_sum;
    double elapsed_ns;
    double cpu_ns;
    int setup_error;
    char setup_msg[200];
} __attribute__((aligned(64)));

struct hog {
    pthread_t tid;
    long nivcsw;
    uint64_t loops;
    double cpu_ns;
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

static inline uint64_t xorshift(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static inline void lock_acquire(volatile int *l)
{
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(l, __ATOMIC_RELAXED))
            cpu_relax();
}

/*
 * --backoff slock: shaped like PostgreSQL's s_lock()/perform_spin_delay()
 * (src/backend/storage/lmgr/s_lock.c): test-and-set; while it fails, spin
 * spins_per_delay times (100 here, fixed), then sleep cur_delay (first 1 ms),
 * growing it by a random fraction of itself plus half a ms up to 1 s, then
 * back to 1 ms. The sleep is a voluntary context switch.
 */
#define SLOCK_SPINS 100
#define SLOCK_MIN_DELAY_US 1000
#define SLOCK_MAX_DELAY_US 1000000
static inline void lock_acquire_slock(volatile int *l, uint64_t *rng)
{
    int spins = 0;
    long cur_delay = 0;
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE)) {
        while (__atomic_load_n(l, __ATOMIC_RELAXED)) {
            cpu_relax();
            if (++spins >= SLOCK_SPINS) {
                if (cur_delay == 0)
                    cur_delay = SLOCK_MIN_DELAY_US;
                struct timespec d = { cur_delay / 1000000, (cur_delay % 1000000) * 1000 };
                nanosleep(&d, NULL);
                cur_delay += (long)((double)cur_delay * (double)(xorshift(rng) % 1000) / 1000.0) + 500;
                if (cur_delay > SLOCK_MAX_DELAY_US)
                    cur_delay = SLOCK_MIN_DELAY_US;
                spins = 0;
            }
        }
    }
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

/*
 * Every arm registers the same rseq area (glibc's when it covers slice_ctrl,
 * else this thread's own; the driver runs every arm with the same
 * GLIBC_TUNABLES), so that the arms differ only in the request writes (and,
 * for on, the prctl that enables the feature). A failed registration is fatal
 * only for on; the others record it.
 */
static int registration_failed;     /* any worker, not in on */

/* per worker thread: returns the slice_ctrl address, or NULL (msg says why) */
static volatile uint8_t *thread_setup(struct worker *w)
{
    uint8_t *area = NULL;
#ifdef HAVE_GLIBC_RSEQ
    if (feat.rseq_size >= SLICE_FEATURE_SIZE)
        area = (uint8_t *)thread_pointer() + __rseq_offset;
    else if (feat.rseq_size > 0)
        area = NULL;                        /* glibc holds a legacy registration: keep it */
    else
#endif
    {
        if (syscall(__NR_rseq, own_area, AREA_SIZE, 0, RSEQ_SIG) != 0) {
            int e = errno;
            if (cfg.mode == MODE_ON) {
                w->setup_error = 1;
                snprintf(w->setup_msg, sizeof w->setup_msg, "rseq registration failed with %s (%s)",
                         errno_name(e), strerror(e));
                return NULL;
            }
            __atomic_store_n(&registration_failed, 1, __ATOMIC_RELAXED);
        } else
            area = own_area;
    }
    if (cfg.mode == MODE_SIMULATE)
        return sim_area + SLICE_CTRL_OFFSET;
    if (cfg.mode != MODE_ON)
        return NULL;
    if (area == NULL) {
        w->setup_error = 1;
        snprintf(w->setup_msg, sizeof w->setup_msg, "ENOTSUPP: glibc's legacy rseq registration does not cover slice_ctrl");
        return NULL;
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

/*
 * Request protocol v2 (issue 13): the kernel clears the whole slice_ctrl word
 * when it updates the rseq area on the way back to user space after a switch,
 * and drops a request it denied; so on every covered acquire while a hold is
 * active, re-arm when request == 0 && granted == 0. Never write request while
 * granted is set (with rseq debugging the kernel raises SIGSEGV at syscall
 * entry when anything besides granted is set).
 */
static __thread uint32_t t_hold_flags;

static inline __attribute__((always_inline)) void hook_acquired(struct worker *w)
{
    compiler_barrier();                     /* PostgreSQL's TAS is one */
    if (__builtin_expect(ext_mask, 0)) {
        volatile uint8_t *ctrl = t_ctrl;
        if (t_depth++ == 0) {
            w->requests++;
            ctrl[0] = 1;                    /* request */
            compiler_barrier();
        } else if (ctrl[0] == 0 && ctrl[1] == 0) {
            w->rearmed++;
            t_hold_flags |= HOLD_REARMED;
            ctrl[0] = 1;
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
            uint8_t granted = ctrl[1];
            if (requested)
                ctrl[0] = 0;                /* never write request while granted is set: it is not, then */
            if (granted)
                t_hold_flags |= HOLD_GRANTED;
            else if (!requested) {
                t_hold_flags |= HOLD_DROPPED;
                w->dropped++;
            }
            if (__builtin_expect(granted != 0 || requested == 0 || --t_until_flush <= 0, 0))
                relinquish(w, requested);
        }
    }
}

/* loop count of about NS ns, varied by +-jitter_pct % */
static inline uint64_t jittered(struct worker *w, long ns)
{
    if (cfg.jitter_pct == 0 || ns == 0)
        return (uint64_t)((double)ns * loops_per_ns);
    long span = 2 * cfg.jitter_pct + 1;
    double f = 1.0 + (double)((long)(xorshift(&w->rng) % (uint64_t)span) - cfg.jitter_pct) / 100.0;
    return (uint64_t)((double)ns * f * loops_per_ns);
}

/* under the_lock: the next fresh page of the region, or NULL when all were used */
static inline uint8_t *fresh_page(void)
{
    if (next_page >= region_pages) {
        region_exhausted = 1;
        return NULL;
    }
    return region + 4096 * next_page++;
}

static inline void log_hold(struct worker *w, uint64_t t0, uint64_t t1)
{
    if (w->log == NULL || t1 - t0 < (uint64_t)cfg.log_min_ns)
        return;
    if (w->nlog < HOLD_LOG_MAX)
        w->log[w->nlog++] = (struct hold_rec){ t0, t1, t_hold_flags };
    else
        w->log_lost++;
}

/* ---- issue 26 known cases (slicelab helper mech): --syscall-in-cs BYTES ----
 * Each critical section also reads BYTES from /dev/zero: a holder that spends
 * a known, long time inside a syscall (not a fault), so a classifier must put
 * its in-kernel preemptions under kernel-other and its at-return ones under
 * return-syscall. 0 (the default) leaves the section as it was. */
static long ki_syscall_bytes;
static int ki_zero_fd = -1;
static char *ki_buf;
static void ki_setup(void)
{
    if (ki_syscall_bytes <= 0)
        return;
    ki_zero_fd = open("/dev/zero", O_RDONLY);
    ki_buf = malloc((size_t)ki_syscall_bytes);
    if (ki_zero_fd < 0 || !ki_buf) { fprintf(stderr, "lhp: --syscall-in-cs: %s\n", strerror(errno)); exit(2); }
    memset(ki_buf, 1, (size_t)ki_syscall_bytes);    /* no first-touch fault inside a section */
}
static inline void ki_syscall_in_cs(void)
{
    if (ki_syscall_bytes > 0 && read(ki_zero_fd, ki_buf, (size_t)ki_syscall_bytes) < 0) { perror("lhp: --syscall-in-cs read"); exit(2); }
}
/* ---- end of the issue 26 known-case hunk ---- */

/* the measured loop; HOOKED is a constant, so "none" has no hook code at all */
static inline __attribute__((always_inline)) void worker_loop(struct worker *w, const int hooked)
{
    const int timing = cfg.hold_times;
    const int slock = cfg.backoff == BACKOFF_SLOCK;
    uint64_t since_touch = 0;

    while (!stop_flag) {
        uint64_t cs_loops = jittered(w, cfg.cs_ns);
        uint64_t think_loops = jittered(w, cfg.think_ns);
        uint64_t tw = timing ? now_ns() : 0;
        if (slock)
            lock_acquire_slock(&the_lock, &w->rng);
        else
            lock_acquire(&the_lock);
        t_hold_flags = 0;
        if (hooked)
            hook_acquired(w);
        uint64_t t0 = timing ? now_ns() : 0;
        if (cfg.fault_in_cs && ++since_touch >= (uint64_t)cfg.fault_every) {
            since_touch = 0;
            uint8_t *p = fresh_page();
            if (p) {
                uint64_t ta = timing ? now_ns() : 0;
                *(volatile uint8_t *)p = 1;     /* first touch: a minor fault unless pre-faulted or huge */
                if (timing) {
                    uint64_t d = now_ns() - ta;
                    w->touch_hist[bucket_of(d)]++;
                    w->touch_sum += (double)d;
                    w->touch_n++;
                    if (d > w->touch_max)
                        w->touch_max = d;
                }
                w->touched++;
                t_hold_flags |= HOLD_TOUCHED;
            }
        }
        if (cfg.inner_locks > 0) {
            uint64_t part = cs_loops / (uint64_t)(cfg.inner_locks + 1);
            for (int k = 0; k < cfg.inner_locks; k++) {
                spin_work(part);
                lock_acquire(&inner_lock);
                if (hooked)
                    hook_acquired(w);
                lock_release(&inner_lock);
                if (hooked)
                    hook_released(w);
            }
            spin_work(part);
        } else
            spin_work(cs_loops);
        ki_syscall_in_cs();     /* issue 26 known case (no-op by default) */
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
            uint64_t wait = t0 - tw;
            w->wait_hist[bucket_of(wait)]++;
            w->sum_wait += (double)wait;
            if (wait > w->max_wait)
                w->max_wait = wait;
            if (t_hold_flags & HOLD_TOUCHED) {
                w->touched_hold_sum += (double)hold;
                w->touched_hold_hist[bucket_of(hold)]++;
            } else
                w->untouched_hold_hist[bucket_of(hold)]++;
            log_hold(w, t0, t1);
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
    w->os_tid = (int)syscall(SYS_gettid);
    char name[16];
    snprintf(name, sizeof name, "lhp-w%d", w->index);
    pthread_setname_np(pthread_self(), name);
    w->rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)cfg.seed * 1000003u + (uint64_t)w->index + 1);
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
    w->minflt = ru1.ru_minflt - ru0.ru_minflt;
    w->majflt = ru1.ru_majflt - ru0.ru_majflt;
    return NULL;
}

static void *hog_main(void *arg)
{
    struct hog *h = arg;
    struct rusage ru0, ru1;
    pthread_setname_np(pthread_self(), "lhp-hog");
    while (!start_flag)
        cpu_relax();
    getrusage(RUSAGE_THREAD, &ru0);
    uint64_t c0 = thread_cpu_ns();
    uint64_t n = 0;
    while (!stop_flag) {
        spin_work(1000);
        n++;
    }
    h->cpu_ns = (double)(thread_cpu_ns() - c0);
    getrusage(RUSAGE_THREAD, &ru1);
    h->nivcsw = ru1.ru_nivcsw - ru0.ru_nivcsw;
    h->loops = n;
    return NULL;
}

static void usage(void)
{
    fprintf(stderr,
            "usage: lhp [--threads T] [--hogs H] [--cs-ns L] [--think-ns N] [--duration S]\n"
            "           [--extension off|on|simulate|none] [--no-hold-times]\n"
            "           [--fault-in-cs] [--fault-every K] [--pages 4k|hugetlb|thp] [--region-mib M] [--prefault]\n"
            "           [--syscall-in-cs BYTES]  (issue 26 known case: read BYTES of /dev/zero in each section)\n"
            "           [--backoff spin|slock] [--inner-locks N] [--jitter-pct P] [--seed S]\n"
            "           [--hold-log FILE] [--log-min-ns N] [--pin-cpus N]\n");
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

#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif
static long huge_kib_mapped = -1;   /* from /proc/self/smaps after the run */

static void die_region(const char *what)
{
    fprintf(stderr, "lhp: --pages %s: %s failed: %s%s\n",
            cfg.pages == PAGES_4K ? "4k" : cfg.pages == PAGES_HUGETLB ? "hugetlb" : "thp", what, strerror(errno),
            cfg.pages == PAGES_HUGETLB && (errno == ENOMEM || errno == EINVAL || errno == ENOSPC)
                ? " (reserve huge pages first: echo N > /proc/sys/vm/nr_hugepages; needs CONFIG_HUGETLBFS)" : "");
    exit(2);
}

/*
 * The shared region: a memfd whose pages are allocated before the run
 * (fallocate), so that each first touch from the loop is a minor fault that
 * maps an existing page. thp: no fallocate (shmem allocates huge pages at
 * fault time when the mapping is madvised and shmem_enabled allows it).
 */
static void setup_region(void)
{
    size_t bytes = (size_t)cfg.region_mib << 20;
    int fd = (int)syscall(SYS_memfd_create, "lhp-region", cfg.pages == PAGES_HUGETLB ? MFD_HUGETLB : 0u);
    if (fd < 0) die_region("memfd_create");
    if (ftruncate(fd, (off_t)bytes) != 0) die_region("ftruncate");
    if (cfg.pages != PAGES_THP && fallocate(fd, 0, 0, (off_t)bytes) != 0) die_region("fallocate");
    region = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (region == MAP_FAILED) die_region("mmap");
    if (cfg.pages == PAGES_THP && madvise(region, bytes, MADV_HUGEPAGE) != 0) die_region("madvise(MADV_HUGEPAGE)");
    close(fd);
    region_pages = bytes / 4096;
    if (cfg.prefault)
        for (size_t i = 0; i < region_pages; i++)
            ((volatile uint8_t *)region)[4096 * i] = 0;
}

/* kB of huge pages mapped in the region (hugetlb or shmem PMD mappings) */
static long region_huge_kib(void)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f) return -1;
    char line[256];
    int in = 0;
    long kib = 0;
    unsigned long lo, hi;
    while (fgets(line, sizeof line, f)) {
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') == line + strspn(line, "0123456789abcdef")) {
            in = lo == (unsigned long)region;
            continue;
        }
        long v;
        if (in && (sscanf(line, "ShmemPmdMapped: %ld kB", &v) == 1 || sscanf(line, "Shared_Hugetlb: %ld kB", &v) == 1 ||
                   sscanf(line, "Private_Hugetlb: %ld kB", &v) == 1))
            kib += v;
    }
    fclose(f);
    return kib;
}

/*
 * --pin-cpus N: restricts the process (before any thread starts, so every
 * thread inherits it) to the N highest-numbered CPUs it may run on, so that
 * T workers + H hogs oversubscribe N CPUs on a machine of any size, as the
 * kit's 1-vCPU guest does. The CPUs used are printed in the config.
 */
static void pin_process(void)
{
    cpu_set_t allowed, use;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        fprintf(stderr, "lhp: --pin-cpus: sched_getaffinity failed: %s\n", strerror(errno));
        exit(2);
    }
    CPU_ZERO(&use);
    for (int c = CPU_SETSIZE - 1; c >= 0 && npinned < cfg.pin_cpus; c--)
        if (CPU_ISSET(c, &allowed)) {
            CPU_SET(c, &use);
            pinned_cpus[npinned++] = c;
        }
    if (npinned < cfg.pin_cpus) {
        fprintf(stderr, "lhp: --pin-cpus %d: only %d CPUs are allowed to this process\n", cfg.pin_cpus, npinned);
        exit(2);
    }
    if (sched_setaffinity(0, sizeof use, &use) != 0) {
        fprintf(stderr, "lhp: --pin-cpus: sched_setaffinity failed: %s\n", strerror(errno));
        exit(2);
    }
}

static void write_hold_log(struct worker *workers)
{
    FILE *f = fopen(cfg.hold_log, "w");
    if (!f) { fprintf(stderr, "lhp: --hold-log %s: %s\n", cfg.hold_log, strerror(errno)); exit(2); }
    fprintf(f, "# slicelab-lhp hold log v1: tid start_ns end_ns flags (CLOCK_MONOTONIC; holds >= %ld ns; flags 1 granted-at-release 2 dropped 4 touched 8 rearmed)\n", cfg.log_min_ns);
    for (int i = 0; i < cfg.threads; i++) {
        struct worker *w = &workers[i];
        fprintf(f, "# worker %d tid %d holds %llu logged %zu lost %zu\n", w->index, w->os_tid, (unsigned long long)w->iterations, w->nlog, w->log_lost);
        for (size_t k = 0; k < w->nlog; k++)
            fprintf(f, "%d %llu %llu %u\n", w->os_tid, (unsigned long long)w->log[k].start, (unsigned long long)w->log[k].end, w->log[k].flags);
    }
    if (fclose(f) != 0) { fprintf(stderr, "lhp: --hold-log %s: %s\n", cfg.hold_log, strerror(errno)); exit(2); }
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--no-hold-times")) { cfg.hold_times = 0; continue; }
        if (!strcmp(a, "--fault-in-cs")) { cfg.fault_in_cs = 1; continue; }
        if (!strcmp(a, "--prefault")) { cfg.prefault = 1; continue; }
        if (!v) usage();
        if (!strcmp(a, "--threads")) cfg.threads = (int)parse_long("threads", v, 1);
        else if (!strcmp(a, "--hogs")) cfg.hogs = (int)parse_long("hogs", v, 0);
        else if (!strcmp(a, "--cs-ns")) cfg.cs_ns = parse_long("cs-ns", v, 0);
        else if (!strcmp(a, "--think-ns")) cfg.think_ns = parse_long("think-ns", v, 0);
        else if (!strcmp(a, "--syscall-in-cs")) ki_syscall_bytes = parse_long("syscall-in-cs", v, 0);     /* issue 26 known case */
        else if (!strcmp(a, "--fault-every")) cfg.fault_every = parse_long("fault-every", v, 1);
        else if (!strcmp(a, "--region-mib")) cfg.region_mib = parse_long("region-mib", v, 2);
        else if (!strcmp(a, "--pin-cpus")) cfg.pin_cpus = (int)parse_long("pin-cpus", v, 1);
        else if (!strcmp(a, "--inner-locks")) cfg.inner_locks = (int)parse_long("inner-locks", v, 0);
        else if (!strcmp(a, "--jitter-pct")) cfg.jitter_pct = parse_long("jitter-pct", v, 0);
        else if (!strcmp(a, "--seed")) cfg.seed = (unsigned long)parse_long("seed", v, 0);
        else if (!strcmp(a, "--log-min-ns")) cfg.log_min_ns = parse_long("log-min-ns", v, 0);
        else if (!strcmp(a, "--hold-log")) cfg.hold_log = v;
        else if (!strcmp(a, "--pages")) {
            if (!strcmp(v, "4k")) cfg.pages = PAGES_4K;
            else if (!strcmp(v, "hugetlb")) cfg.pages = PAGES_HUGETLB;
            else if (!strcmp(v, "thp")) cfg.pages = PAGES_THP;
            else { fprintf(stderr, "lhp: --pages expects 4k, hugetlb or thp, got \"%s\"\n", v); exit(2); }
        } else if (!strcmp(a, "--backoff")) {
            if (!strcmp(v, "spin")) cfg.backoff = BACKOFF_SPIN;
            else if (!strcmp(v, "slock")) cfg.backoff = BACKOFF_SLOCK;
            else { fprintf(stderr, "lhp: --backoff expects spin or slock, got \"%s\"\n", v); exit(2); }
        }
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
    if (cfg.jitter_pct > 90) { fprintf(stderr, "lhp: --jitter-pct expects 0..90, got %ld\n", cfg.jitter_pct); exit(2); }
    if (cfg.pin_cpus > 0)
        pin_process();
    if (cfg.fault_in_cs)
        setup_region();
    ki_setup();     /* issue 26 known case (no-op by default) */

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
            workers[i].wait_hist = calloc(NBUCKETS, sizeof(uint64_t));
            workers[i].touch_hist = calloc(NBUCKETS, sizeof(uint64_t));
            workers[i].touched_hold_hist = calloc(NBUCKETS, sizeof(uint64_t));
            workers[i].untouched_hold_hist = calloc(NBUCKETS, sizeof(uint64_t));
            if (cfg.hold_log) {
                workers[i].log = malloc(sizeof(struct hold_rec) * HOLD_LOG_MAX);
                memset(workers[i].log, 0, sizeof(struct hold_rec) * HOLD_LOG_MAX);   /* pre-fault: no faults outside holds */
            }
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
        if (cfg.fault_in_cs)
            huge_kib_mapped = region_huge_kib();
        if (cfg.hold_log)
            write_hold_log(workers);
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
    static const char *page_names[] = { "4k", "hugetlb", "thp" };
    printf("{\"program\":\"slicelab-lhp\",\"version\":3,");
    printf("\"config\":{\"threads\":%d,\"hogs\":%d,\"csNs\":%ld,\"thinkNs\":%ld,\"durationS\":%g,\"extension\":\"%s\",\"holdTimes\":%s,",
           cfg.threads, cfg.hogs, cfg.cs_ns, cfg.think_ns, cfg.duration, mode_names[cfg.mode], cfg.hold_times ? "true" : "false");
    printf("\"requestProtocol\":2,\"backoff\":\"%s\",\"innerLocks\":%d,\"jitterPct\":%ld,\"seed\":%lu,\"faultInCs\":",
           cfg.backoff == BACKOFF_SLOCK ? "slock" : "spin", cfg.inner_locks, cfg.jitter_pct, cfg.seed);
    if (cfg.fault_in_cs)
        printf("{\"pages\":\"%s\",\"faultEvery\":%ld,\"regionMiB\":%ld,\"prefault\":%s},",
               page_names[cfg.pages], cfg.fault_every, cfg.region_mib, cfg.prefault ? "true" : "false");
    else
        printf("null,");
    printf("\"pinnedCpus\":");
    if (npinned == 0)
        printf("null},");
    else {
        printf("[");
        for (int k = 0; k < npinned; k++)
            printf("%s%d", k ? "," : "", pinned_cpus[k]);
        printf("]},");
    }
    printf("\"feature\":{\"available\":%s,\"area\":", cfg.mode == MODE_OFF || cfg.mode == MODE_NONE ? "null" : feat.available || cfg.mode == MODE_SIMULATE ? "true" : "false");
    json_string(feat.area);
    printf(",\"registered\":%s", registration_failed ? "false" : "true");
    printf(",\"glibcRseqSize\":%ld,\"auxvFeatureSize\":%lu,\"auxvAlign\":%lu,\"error\":", feat.rseq_size, feat.feature_size, feat.align);
    if (feat.err) json_string(feat.err); else printf("null");
    printf(",\"reason\":");
    if (feat.reason[0]) json_string(feat.reason); else printf("null");
    printf("},");
    if (exit_status != 0 || workers == NULL) {
        printf("\"results\":null}\n");
        return exit_status;
    }
    uint64_t iters = 0, req = 0, gr = 0, yi = 0, rv = 0, maxh = 0, dr = 0, ra = 0, touched = 0, maxw = 0, hog_loops = 0;
    long niv = 0, nv = 0, hog_niv = 0, minflt = 0, majflt = 0;
    double sumh = 0, per_iter = 0, cpu_per_iter = 0, sumw = 0, hog_cpu = 0;
    uint64_t *whist = calloc(NBUCKETS, sizeof *whist);
    uint64_t *thist = calloc(NBUCKETS, sizeof *thist);
    uint64_t *th_hist = calloc(NBUCKETS, sizeof *th_hist), *uh_hist = calloc(NBUCKETS, sizeof *uh_hist);
    uint64_t touch_n = 0, touch_max = 0;
    double touch_sum = 0, touched_hold_sum = 0;
    for (int i = 0; i < cfg.threads; i++) {
        struct worker *w = &workers[i];
        iters += w->iterations;
        req += w->requests; gr += w->grants; yi += w->yields; rv += w->revoked;
        niv += w->nivcsw; nv += w->nvcsw;
        sumh += w->sum_hold;
        if (w->max_hold > maxh) maxh = w->max_hold;
        for (int b = 0; b < NBUCKETS; b++) hist[b] += w->hist[b];
        for (int b = 0; b < NBUCKETS; b++) whist[b] += w->wait_hist[b];
        for (int b = 0; b < NBUCKETS; b++) thist[b] += w->touch_hist[b];
        for (int b = 0; b < NBUCKETS; b++) th_hist[b] += w->touched_hold_hist[b];
        for (int b = 0; b < NBUCKETS; b++) uh_hist[b] += w->untouched_hold_hist[b];
        touch_n += w->touch_n; touch_sum += w->touch_sum; touched_hold_sum += w->touched_hold_sum;
        if (w->touch_max > touch_max) touch_max = w->touch_max;
        dr += w->dropped; ra += w->rearmed; touched += w->touched;
        minflt += w->minflt; majflt += w->majflt;
        sumw += w->sum_wait;
        if (w->max_wait > maxw) maxw = w->max_wait;
        if (w->iterations > 0) {
            per_iter += w->elapsed_ns / (double)w->iterations;
            cpu_per_iter += w->cpu_ns / (double)w->iterations;
        }
    }
    for (int i = 0; i < cfg.hogs; i++) {
        hog_niv += hogs[i].nivcsw;
        hog_loops += hogs[i].loops;
        hog_cpu += hogs[i].cpu_ns;
    }
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
    if (cfg.hold_times)
        printf("\"waitNs\":{\"mean\":%.1f,\"p50\":%.1f,\"p90\":%.1f,\"p99\":%.1f,\"p999\":%.1f,\"max\":%llu},",
               iters ? sumw / (double)iters : 0, percentile(whist, iters, 0.5), percentile(whist, iters, 0.9),
               percentile(whist, iters, 0.99), percentile(whist, iters, 0.999), (unsigned long long)maxw);
    else
        printf("\"waitNs\":null,");
    /* hog work: spin_work(1000) calls, and the same in ns of calibrated CPU work */
    printf("\"hogs\":{\"loops\":%llu,\"workNs\":%.0f,\"cpuS\":%.6f,\"workPerS\":%.1f},",
           (unsigned long long)hog_loops, loops_per_ns > 0 ? (double)hog_loops * 1000.0 / loops_per_ns : 0, hog_cpu / 1e9,
           (double)hog_loops / elapsed);
    printf("\"faults\":{\"workerMinor\":%ld,\"workerMajor\":%ld,\"freshPagesTouched\":%llu,\"regionExhausted\":%s,\"hugeKiBMapped\":%ld},",
           minflt, majflt, (unsigned long long)touched, region_exhausted ? "true" : "false", huge_kib_mapped);
    /* the first touch inside a section, timed by two clock reads around the
     * store (their own cost, tens of ns, is included), and the hold split:
     * holds that touched a page vs the rest (section work = hold - touch) */
    if (cfg.hold_times && cfg.fault_in_cs && touch_n > 0) {
        double untouched_n = (double)(iters - touch_n);
        printf("\"touchNs\":{\"count\":%llu,\"mean\":%.1f,\"p50\":%.1f,\"p99\":%.1f,\"max\":%llu},",
               (unsigned long long)touch_n, touch_sum / (double)touch_n, percentile(thist, touch_n, 0.5),
               percentile(thist, touch_n, 0.99), (unsigned long long)touch_max);
        /* means include the holds that were preempted (ms-long tails); the medians do not */
        printf("\"holdSplit\":{\"touchedHolds\":%llu,\"touchedHoldMeanNs\":%.1f,\"touchMeanNs\":%.1f,\"workMeanNs\":%.1f,\"untouchedHoldMeanNs\":%.1f,"
               "\"touchedHoldP50Ns\":%.1f,\"untouchedHoldP50Ns\":%.1f},",
               (unsigned long long)touch_n, touched_hold_sum / (double)touch_n, touch_sum / (double)touch_n,
               (touched_hold_sum - touch_sum) / (double)touch_n,
               untouched_n > 0 ? (sumh - touched_hold_sum) / untouched_n : 0,
               percentile(th_hist, touch_n, 0.5), percentile(uh_hist, iters - touch_n, 0.5));
    } else
        printf("\"touchNs\":null,\"holdSplit\":null,");
    printf("\"dropped\":%llu,\"rearmed\":%llu,", (unsigned long long)dr, (unsigned long long)ra);
    printf("\"involuntaryCtxSwitches\":{\"workers\":%ld,\"hogs\":%ld},\"voluntaryCtxSwitches\":%ld,", niv, hog_niv, nv);
    printf("\"requests\":%llu,\"grants\":%llu,\"yields\":%llu,\"revoked\":%llu}}\n",
           (unsigned long long)req, (unsigned long long)gr, (unsigned long long)yi, (unsigned long long)rv);
    return 0;
}
