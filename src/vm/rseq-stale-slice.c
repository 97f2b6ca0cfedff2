/*
 * rseq-stale-slice: does a time-slice-extension grant that the kernel revoked
 * leave the syscall entry work (SYSCALL_RSEQ_SLICE) set, so that the next
 * syscall, made inside a new section with slice_ctrl.request = 1, fails the
 * rseq debug check in rseq_syscall_enter_work() and is killed by SIGSEGV?
 * (slicelab issue 27, item 1; built by src/vm/rseq-stale.ts, run in the VM.)
 *
 *   rseq-stale-slice [--iterations N] [--consume] [--timeout-s S] [--cpu C]
 *
 * One worker process (pinned to CPU C, default 0) and one CPU hog pinned to
 * the same CPU, so that the worker's slice runs out at a tick and the kernel
 * has something to reschedule to. Each iteration of the worker:
 *   1. sets request = 1 and spins (no syscall) until the kernel grants;
 *   2. keeps spinning (no syscall) until the grant is gone: the extension's
 *      timer expires and the kernel revokes it on the way back to user space;
 *   3. with --consume, makes one getppid() with request = 0 (that syscall
 *      takes the stale work bit, if any, while the word is 0);
 *   4. starts the next section as the kernel's documentation prescribes
 *      (request = 1), makes a syscall (getppid) inside it, ends it
 *      (request = 0; rseq_slice_yield if granted).
 * The worker's counters live in a shared page, so the parent can report how
 * far a killed worker got. The parent prints one JSON line and exits 0 when
 * the worker survived all iterations, 128 + signal when it was killed, 3 when
 * it hung past the timeout, 2 when the extension could not be set up.
 *
 * ABI (Linux 7.x uapi, written out so this builds against Debian 12's
 * headers): prctl(PR_RSEQ_SLICE_EXTENSION = 79, SET = 2, ENABLE = 1);
 * struct rseq's slice_ctrl is a u32 at byte 28 (u8 request, u8 granted);
 * a registration longer than 32 bytes selects the v2 ABI, which the
 * extension needs; rseq_slice_yield is syscall 471 on x86-64.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PR_RSEQ_SLICE_EXTENSION 79
#define PR_RSEQ_SLICE_EXTENSION_SET 2
#define PR_RSEQ_SLICE_EXT_ENABLE 1
#define NR_RSEQ_SLICE_YIELD 471
#define RSEQ_SIG 0x53053053
#define RSEQ_FLAG_UNREGISTER 1
#define AREA_LEN 64

struct area {
	uint32_t cpu_id_start;
	uint32_t cpu_id;
	uint64_t rseq_cs;
	uint32_t flags;
	uint32_t node_id;
	uint32_t mm_cid;
	volatile uint8_t request;
	volatile uint8_t granted;
	uint16_t reserved;
	uint8_t tail[AREA_LEN - 32];
} __attribute__((aligned(64)));

_Static_assert(offsetof(struct area, request) == 28, "slice_ctrl is at byte 28");

extern const unsigned int __rseq_size __attribute__((weak));
extern const ptrdiff_t __rseq_offset __attribute__((weak));

/* What the worker did, in a page shared with the parent. */
struct progress {
	volatile int setup; /* 0 running setup, 1 ok, -1 failed */
	char setup_error[160];
	char registration[32];
	volatile long iterations;   /* iterations finished */
	volatile long grants;       /* grants the worker saw (granted = 1) */
	volatile long revokes;      /* grants that ended with granted = 0 and no syscall of ours */
	volatile long stale_calls;  /* syscalls made with request = 1 right after a revoke */
	volatile long consumed;     /* --consume syscalls made with request = 0 */
	volatile long regranted;    /* the section of step 4 was granted before its syscall */
	volatile long rerequests;   /* request found cleared (by a switch) while waiting for a grant */
	volatile long yields;
	volatile int phase;         /* 1 wait grant, 2 wait revoke, 3 consume, 4 stale syscall, 5 done */
};

static struct area own;
static struct progress *prog;

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void pin(int cpu)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof set, &set);
}

static int setup_fail(const char *what)
{
	snprintf(prog->setup_error, sizeof prog->setup_error, "%s: %s", what, strerror(errno));
	prog->setup = -1;
	return 2;
}

static int worker(long iterations, int consume, int cpu)
{
	pin(cpu);
	/* glibc (2.35+) registered a 32-byte legacy area for this thread: give it up. */
	unsigned int gsize = &__rseq_size ? __rseq_size : 0;
	if (gsize > 0) {
		void *g = (char *)__builtin_thread_pointer() + __rseq_offset;
		if (syscall(SYS_rseq, g, gsize < 32 ? 32 : gsize, RSEQ_FLAG_UNREGISTER, RSEQ_SIG) != 0 && errno != EINVAL)
			return setup_fail("rseq unregister (glibc's area)");
	}
	unsigned long need = getauxval(AT_RSEQ_FEATURE_SIZE);
	if (need > AREA_LEN) {
		errno = ENOSPC;
		return setup_fail("AT_RSEQ_FEATURE_SIZE larger than the area");
	}
	if (syscall(SYS_rseq, &own, AREA_LEN, 0, RSEQ_SIG) != 0)
		return setup_fail("rseq register");
	snprintf(prog->registration, sizeof prog->registration, "own:%d", AREA_LEN);
	if (prctl(PR_RSEQ_SLICE_EXTENSION, PR_RSEQ_SLICE_EXTENSION_SET, PR_RSEQ_SLICE_EXT_ENABLE, 0, 0) != 0)
		return setup_fail("prctl(PR_RSEQ_SLICE_EXTENSION, SET, ENABLE)");
	prog->setup = 1;

	for (long i = 0; i < iterations; i++) {
		/* 1: a section that gets granted (no syscall while waiting). */
		prog->phase = 1;
		own.request = 1;
		__asm__ __volatile__("" ::: "memory");
		while (!own.granted) {
			if (!own.request) {
				prog->rerequests++;
				own.request = 1;
			}
		}
		prog->grants++;
		/* 2: no syscall until the kernel takes the grant back. */
		prog->phase = 2;
		while (own.granted)
			;
		prog->revokes++;
		own.request = 0;
		__asm__ __volatile__("" ::: "memory");
		/* 3: optionally, a syscall with request = 0 takes the stale bit. */
		if (consume) {
			prog->phase = 3;
			syscall(SYS_getppid);
			prog->consumed++;
		}
		/* 4: the next section, by the documented protocol, with a syscall inside. */
		prog->phase = 4;
		own.request = 1;
		__asm__ __volatile__("" ::: "memory");
		if (own.granted)
			prog->regranted++;
		prog->stale_calls++;
		syscall(SYS_getppid);
		__asm__ __volatile__("" ::: "memory");
		own.request = 0;
		if (own.granted) {
			syscall(NR_RSEQ_SLICE_YIELD);
			prog->yields++;
		}
		prog->iterations = i + 1;
	}
	prog->phase = 5;
	return 0;
}

/* rseq/stats as "key value" pairs; returns the count (0 when unreadable). */
static int read_stats(char keys[][16], unsigned long *vals, int max)
{
	FILE *f = fopen("/sys/kernel/debug/rseq/stats", "r");
	if (!f)
		return 0;
	int n = 0;
	char line[128];
	while (n < max && fgets(line, sizeof line, f))
		if (sscanf(line, "%15[^:]: %lu", keys[n], &vals[n]) == 2)
			n++;
	fclose(f);
	return n;
}

static int read_int_file(const char *path)
{
	FILE *f = fopen(path, "r");
	int v = -1;
	if (!f)
		return -1;
	if (fscanf(f, "%d", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static const char *phase_name(int p)
{
	static const char *names[] = { "setup", "wait-grant", "wait-revoke", "consume", "stale-syscall", "done" };
	return p >= 0 && p <= 5 ? names[p] : "unknown";
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		if ((unsigned char)*s >= 0x20)
			putchar(*s);
	}
	putchar('"');
}

int main(int argc, char **argv)
{
	long iterations = 200;
	int consume = 0, timeout_s = 60, cpu = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--iterations") && i + 1 < argc)
			iterations = atol(argv[++i]);
		else if (!strcmp(argv[i], "--consume"))
			consume = 1;
		else if (!strcmp(argv[i], "--timeout-s") && i + 1 < argc)
			timeout_s = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--cpu") && i + 1 < argc)
			cpu = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: %s [--iterations N] [--consume] [--timeout-s S] [--cpu C]\n", argv[0]);
			return 2;
		}
	}
	if (iterations < 1 || timeout_s < 1 || cpu < 0) {
		fprintf(stderr, "%s: --iterations and --timeout-s must be positive, --cpu not negative\n", argv[0]);
		return 2;
	}
	prog = mmap(NULL, sizeof *prog, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (prog == MAP_FAILED) {
		perror("mmap");
		return 2;
	}
	memset(prog, 0, sizeof *prog);

	char k0[16][16], k1[16][16];
	unsigned long v0[16], v1[16];
	int debug = read_int_file("/sys/kernel/debug/rseq/debug");
	int n0 = read_stats(k0, v0, 16);

	pin(cpu);
	pid_t hog = fork();
	if (hog == 0) {
		pin(cpu);
		for (;;)
			__asm__ __volatile__("" ::: "memory");
	}
	long t0 = now_ms();
	pid_t w = fork();
	if (w == 0)
		_exit(worker(iterations, consume, cpu));

	int status = 0, timed_out = 0;
	for (;;) {
		pid_t r = waitpid(w, &status, WNOHANG);
		if (r == w)
			break;
		if (now_ms() - t0 > timeout_s * 1000L) {
			timed_out = 1;
			kill(w, SIGKILL);
			waitpid(w, &status, 0);
			break;
		}
		usleep(20000);
	}
	long elapsed = now_ms() - t0;
	if (hog > 0) {
		kill(hog, SIGKILL);
		waitpid(hog, NULL, 0);
	}
	int n1 = read_stats(k1, v1, 16);

	const char *verdict;
	int sig = 0, code = -1, rc;
	if (timed_out) {
		verdict = "hung";
		rc = 3;
	} else if (WIFSIGNALED(status)) {
		sig = WTERMSIG(status);
		verdict = "killed";
		rc = 128 + sig;
	} else {
		code = WEXITSTATUS(status);
		verdict = prog->setup == 1 && code == 0 && prog->iterations == iterations ? "survived" : "error";
		rc = !strcmp(verdict, "survived") ? 0 : 2;
	}
	struct utsname u;
	uname(&u);
	printf("{\"tool\":\"rseq-stale-slice\",\"kernelRelease\":");
	json_str(u.release);
	printf(",\"rseqDebug\":%d,\"consume\":%s,\"cpu\":%d,\"iterationsAsked\":%ld", debug, consume ? "true" : "false", cpu, iterations);
	printf(",\"verdict\":\"%s\",\"signal\":%d,\"signalName\":", verdict, sig);
	json_str(sig ? sigabbrev_np(sig) ? sigabbrev_np(sig) : "?" : "");
	printf(",\"exitCode\":%d,\"setup\":%d,\"setupError\":", code, prog->setup);
	json_str(prog->setup_error);
	printf(",\"registration\":");
	json_str(prog->registration);
	printf(",\"phase\":\"%s\",\"iterations\":%ld,\"grants\":%ld,\"revokes\":%ld,\"staleCalls\":%ld,\"consumed\":%ld,\"regranted\":%ld,\"rerequests\":%ld,\"yields\":%ld,\"elapsedMs\":%ld",
	       phase_name(prog->phase), prog->iterations, prog->grants, prog->revokes, prog->stale_calls, prog->consumed,
	       prog->regranted, prog->rerequests, prog->yields, elapsed);
	printf(",\"stats\":");
	if (n0 == 0 || n1 == 0)
		printf("null");
	else {
		printf("{");
		int first = 1;
		for (int i = 0; i < n1; i++)
			for (int j = 0; j < n0; j++)
				if (!strcmp(k1[i], k0[j])) {
					printf("%s\"%s\":%lu", first ? "" : ",", k1[i], v1[i] - v0[j]);
					first = 0;
				}
		printf("}");
	}
	printf("}\n");
	fflush(stdout);
	return rc;
}
