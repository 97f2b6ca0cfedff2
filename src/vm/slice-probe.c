/*
 * slice-probe: does this kernel offer the rseq time-slice extension to this
 * process, and does it grant extensions?  Built by slicelab (src/vm/probe.ts)
 * with the host's cc; runs inside the VM (or on any host).  Output: one
 * `key=value` per line, parsed by src/vm/probe.ts.
 *
 *   slice-probe [--set-nsec N] [--threads T] [--seconds S] [--cs-us U]
 *
 * ABI from the 7.x uapi headers (include/uapi/linux/rseq.h, prctl.h), written
 * out here so the probe builds against an older libc's headers:
 *   prctl(PR_RSEQ_SLICE_EXTENSION=79, GET=1 | SET=2, PR_RSEQ_SLICE_EXT_ENABLE=1)
 *   struct rseq: slice_ctrl (u8 request, u8 granted, u16 reserved) at byte 28,
 *   feature size ≥ 33 (getauxval(AT_RSEQ_FEATURE_SIZE=27)), align AT_RSEQ_ALIGN=28.
 *   rseq_slice_yield is syscall 471 on x86-64.
 * An rseq area registered with the original 32 bytes (glibc < 2.41, like
 * Debian 12's 2.36) keeps the legacy mode, which has no slice extension: the
 * probe then unregisters glibc's area and registers its own, longer one.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#define PR_RSEQ_SLICE_EXTENSION 79
#define PR_RSEQ_SLICE_EXTENSION_GET 1
#define PR_RSEQ_SLICE_EXTENSION_SET 2
#define PR_RSEQ_SLICE_EXT_ENABLE 0x01
#define AT_RSEQ_FEATURE_SIZE_ 27
#define AT_RSEQ_ALIGN_ 28
#define NR_rseq_slice_yield 471
#define RSEQ_SIG 0x53053053
#define RSEQ_FLAG_UNREGISTER 1
#define FLAG_SLICE_EXT_AVAILABLE (1u << 4)
#define FLAG_SLICE_EXT_ENABLED (1u << 5)

struct slice_rseq {
	uint32_t cpu_id_start;
	uint32_t cpu_id;
	uint64_t rseq_cs;
	uint32_t flags;
	uint32_t node_id;
	uint32_t mm_cid;
	volatile uint8_t request;
	volatile uint8_t granted;
	uint16_t reserved;
	uint8_t pad[256 - 32];
} __attribute__((aligned(256)));

/* glibc ≥ 2.35 exports where (and how large) its own registration is. */
extern const unsigned int __rseq_size __attribute__((weak));
extern const ptrdiff_t __rseq_offset __attribute__((weak));

static __thread struct slice_rseq own_area;
static unsigned long feature_size, align_req;

static const char *errname(int e)
{
	switch (e) {
	case EINVAL: return "EINVAL";
	case ENXIO: return "ENXIO";
	case EBUSY: return "EBUSY";
	case EPERM: return "EPERM";
	case 524: return "ENOTSUPP";
	default: return strerror(e);
	}
}

static long prctl_get(void)
{
	return prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_GET, 0, 0, 0);
}

/*
 * Makes sure this thread has an rseq area at least feature_size long.
 * Returns a pointer to it, or NULL (reason printed when verbose).
 */
static struct slice_rseq *thread_rseq(int verbose)
{
	unsigned int gsize = &__rseq_size ? __rseq_size : 0;
	unsigned long need = feature_size > 32 ? feature_size : 33;
	if (gsize >= need) {
		if (verbose)
			printf("rseq_registration=glibc\n");
		return (struct slice_rseq *)((char *)__builtin_thread_pointer() + __rseq_offset);
	}
	if (gsize > 0) {
		/* glibc < 2.41 reports 20 (the fields in use) but registered 32 bytes. */
		void *g = (char *)__builtin_thread_pointer() + __rseq_offset;
		unsigned int glen = gsize < 32 ? 32 : gsize;
		/* EINVAL: this thread has no glibc registration (e.g. glibc's failed); go on. */
		int r = syscall(SYS_rseq, g, glen, RSEQ_FLAG_UNREGISTER, RSEQ_SIG);
		if (verbose)
			printf("rseq_unregister_glibc=%s\n", r == 0 ? "ok" : errname(errno));
	}
	if (syscall(SYS_rseq, &own_area, (unsigned int)need, 0, RSEQ_SIG) != 0) {
		if (verbose)
			printf("rseq_registration=failed:%s\n", errname(errno));
		return NULL;
	}
	if (verbose)
		printf("rseq_registration=own:%lu\n", need);
	return &own_area;
}

static int read_file(const char *path, char *buf, size_t n)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t k = fread(buf, 1, n - 1, f);
	buf[k] = 0;
	fclose(f);
	return 0;
}

static void print_stats(const char *tag)
{
	char buf[4096];
	if (read_file("/sys/kernel/debug/rseq/stats", buf, sizeof buf) != 0) {
		printf("stats_%s=unavailable:%s\n", tag, errname(errno));
		return;
	}
	/* Lines like "sgrant:       123". */
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char key[32];
		unsigned long v;
		if (sscanf(line, "%31[^:]: %lu", key, &v) == 2)
			printf("stats_%s_%s=%lu\n", tag, key, v);
	}
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct worker {
	double seconds, cs_us;
	unsigned long requests, granted, yields, revoked, failed;
	const char *fail_step;
	int fail_errno;
};

/* Oversubscribed spin: request an extension around a busy "critical section". */
static void *spin(void *arg)
{
	struct worker *w = arg;
	struct slice_rseq *rs = thread_rseq(0);
	if (!rs) {
		w->failed = 1;
		w->fail_step = "rseq_register";
		w->fail_errno = errno;
		return NULL;
	}
	if (prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0) != 0) {
		w->failed = 1;
		w->fail_step = "prctl_set";
		w->fail_errno = errno;
		return NULL;
	}
	double end = now() + w->seconds;
	while (now() < end) {
		rs->request = 1;
		__asm__ volatile("" ::: "memory");
		double t = now() + w->cs_us / 1e6;
		while (now() < t)
			;
		__asm__ volatile("" ::: "memory");
		uint8_t still_requested = rs->request;
		rs->request = 0;
		w->requests++;
		if (rs->granted) {
			w->granted++;
			syscall(NR_rseq_slice_yield);
			w->yields++;
		} else if (!still_requested) {
			/* request cleared by the kernel but no grant left: granted then revoked. */
			w->revoked++;
		}
		double idle = now() + 3 * w->cs_us / 1e6; /* outside the section */
		while (now() < idle)
			;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long set_nsec = -1, threads = 0;
	double seconds = 2, cs_us = 20;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--set-nsec") && i + 1 < argc)
			set_nsec = atol(argv[++i]);
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = atol(argv[++i]);
		else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--cs-us") && i + 1 < argc)
			cs_us = atof(argv[++i]);
		else {
			fprintf(stderr, "usage: slice-probe [--set-nsec N] [--threads T] [--seconds S] [--cs-us U]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct utsname u;
	uname(&u);
	printf("kernel_release=%s\n", u.release);
	printf("online_cpus=%ld\n", sysconf(_SC_NPROCESSORS_ONLN));
	feature_size = getauxval(AT_RSEQ_FEATURE_SIZE_);
	align_req = getauxval(AT_RSEQ_ALIGN_);
	printf("auxv_rseq_feature_size=%lu\n", feature_size);
	printf("auxv_rseq_align=%lu\n", align_req);
	printf("glibc_rseq_size=%u\n", &__rseq_size ? __rseq_size : 0);

	char buf[256];
	if (read_file("/sys/kernel/debug/rseq/slice_ext_nsec", buf, sizeof buf) == 0)
		printf("slice_ext_nsec=%ld\n", atol(buf));
	else
		printf("slice_ext_nsec=unavailable:%s\n", errname(errno));
	if (set_nsec >= 0) {
		FILE *f = fopen("/sys/kernel/debug/rseq/slice_ext_nsec", "w");
		int ok = f && fprintf(f, "%ld\n", set_nsec) > 0;
		if (f && fclose(f) != 0)
			ok = 0;
		printf("slice_ext_nsec_set=%s\n", ok ? "ok" : errname(errno));
		if (read_file("/sys/kernel/debug/rseq/slice_ext_nsec", buf, sizeof buf) == 0)
			printf("slice_ext_nsec_after=%ld\n", atol(buf));
	}

	long g = prctl_get();
	if (g < 0)
		printf("prctl_get_before=%s\n", errname(errno));
	else
		printf("prctl_get_before=%ld\n", g);

	struct slice_rseq *rs = thread_rseq(1);
	if (rs) {
		printf("rseq_flags_before=0x%x\n", rs->flags);
		long s = prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0);
		printf("prctl_set=%s\n", s == 0 ? "ok" : errname(errno));
		g = prctl_get();
		if (g < 0)
			printf("prctl_get_after=%s\n", errname(errno));
		else
			printf("prctl_get_after=%ld\n", g);
		printf("rseq_flags_after=0x%x\n", rs->flags);
		printf("flag_slice_ext_available=%d\n", !!(rs->flags & FLAG_SLICE_EXT_AVAILABLE));
		printf("flag_slice_ext_enabled=%d\n", !!(rs->flags & FLAG_SLICE_EXT_ENABLED));
	}

	if (threads > 0) {
		print_stats("before");
		pthread_t tid[256];
		struct worker w[256];
		if (threads > 256)
			threads = 256;
		for (long i = 0; i < threads; i++) {
			memset(&w[i], 0, sizeof w[i]);
			w[i].seconds = seconds;
			w[i].cs_us = cs_us;
			pthread_create(&tid[i], NULL, spin, &w[i]);
		}
		unsigned long req = 0, gr = 0, y = 0, rv = 0, failed = 0;
		for (long i = 0; i < threads; i++) {
			pthread_join(tid[i], NULL);
			req += w[i].requests;
			gr += w[i].granted;
			y += w[i].yields;
			rv += w[i].revoked;
			failed += w[i].failed;
			if (w[i].failed)
				printf("spin_thread_%ld_failed=%s:%s\n", i, w[i].fail_step, errname(w[i].fail_errno));
		}
		printf("spin_threads=%ld\n", threads);
		printf("spin_threads_failed=%lu\n", failed);
		printf("spin_requests=%lu\n", req);
		printf("spin_granted_seen=%lu\n", gr);
		printf("spin_yields=%lu\n", y);
		printf("spin_revoked_seen=%lu\n", rv);
		print_stats("after");
	}
	return 0;
}
