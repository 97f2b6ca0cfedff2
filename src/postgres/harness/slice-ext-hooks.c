/*
 * The PostgreSQL patch's time-slice-extension hooks, compiled against a fake
 * rseq area, driven through scenarios of what the Linux 7.2 kernel does to
 * slice_ctrl (include/linux/rseq_entry.h, kernel/rseq.c):
 *
 *   k_switch()   the task went through schedule() and returns to user space:
 *                rseq_exit_user_update() / rseq_set_ids_get_csaddr() store 0
 *                in the whole word (rseq_slice_clear_user()), a grant ends;
 *   k_grant()    an interrupt with a reschedule pending and request set:
 *                __rseq_grant_slice_extension() stores request 0, granted 1;
 *   k_deny()     the same with other work pending (or a grant still active):
 *                __rseq_grant_slice_extension() stores 0;
 *   k_syscall()  any system call inside a grant: rseq_syscall_enter_work()
 *                stores 0 and ends the grant;
 *   rseq_slice_yield(2) (the hooks' syscall(), redirected here) does that
 *                and returns 1 when a grant was active.
 * After every hook call the driver checks what a kernel with rseq debugging
 * would check at the next system call (rseq_slice_validate_ctrl): while the
 * kernel holds a grant, nothing but "granted" may be set in the word.
 *
 * The code under test comes in "under_test.h", written by
 * src/postgres/harness.ts from a patch series: slice_ext.h verbatim, the
 * out-of-line functions from slice_ext.c verbatim, and one glue function per
 * patched PostgreSQL entry point (SpinLockAcquire, LockBufHdr, LWLockRelease,
 * ...) holding the hook calls the patched source makes there, in order.
 *
 * Output: one line per scenario, "PASS name", "FAIL name -- why" or
 * "SKIP name -- why", then "summary passed=N failed=N skipped=N".
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef uint8_t uint8;
typedef uint32_t uint32;
typedef uint64_t uint64;
typedef int64_t int64;
typedef size_t Size;
#define PGDLLIMPORT
#define likely(x) __builtin_expect((x) != 0, 1)
#define unlikely(x) __builtin_expect((x) != 0, 0)

/* ---- the fake kernel ---------------------------------------------------- */

static uint8 rseq_area[64] __attribute__((aligned(64)));
#define KCTRL ((volatile uint8 *) (rseq_area + 28))
static int k_granted;			/* the kernel's state.granted */
static int yield_calls;
static int yield_returned_1;
static int violations;
static char violation_what[160];

static void
k_switch(void)
{
	memset((void *) KCTRL, 0, 4);
	k_granted = 0;
}

static void
k_grant(void)
{
	if (KCTRL[0] && !k_granted)
	{
		KCTRL[0] = 0;
		KCTRL[1] = 1;
		k_granted = 1;
	}
}

static void
k_deny(void)
{
	if (KCTRL[0] || k_granted)
	{
		memset((void *) KCTRL, 0, 4);
		k_granted = 0;
	}
}

static void
k_syscall(void)
{
	if (k_granted)
	{
		memset((void *) KCTRL, 0, 4);
		k_granted = 0;
	}
}

/* a grant the kernel revoked while user space still sees "granted" */
static void
k_forget_grant(void)
{
	k_granted = 0;
}

#define __NR_rseq_slice_yield 471
static long
fake_syscall(long nr, ...)
{
	long		r = 0;

	if (nr != __NR_rseq_slice_yield)
		return -1;
	yield_calls++;
	if (k_granted)
	{
		r = 1;
		yield_returned_1++;
	}
	memset((void *) KCTRL, 0, 4);
	k_granted = 0;
	return r;
}
#define syscall fake_syscall
#define HAVE_SLICE_EXT 1

static int	num_held_lwlocks;

#include "under_test.h"

/* ---- checks --------------------------------------------------------------- */

static void
check_word(const char *where)
{
	if (k_granted && KCTRL[0] != 0 && violations++ == 0)
		snprintf(violation_what, sizeof(violation_what),
				 "%s wrote request while the kernel held a grant (debug kernels raise SIGSEGV)", where);
}

/* every entry point through the glue, then the check */
#define CALL(fn) do { fn(); check_word(#fn); } while (0)
#define SPIN_ACQ()	CALL(pg_SpinLockAcquire)
#define SPIN_REL()	CALL(pg_SpinLockRelease)
#define BUF_ACQ()	CALL(pg_LockBufHdr)
#define BUF_REL()	CALL(pg_UnlockBufHdr)
#define WL_ACQ()	CALL(pg_LWLockWaitListLock)
#define WL_REL()	CALL(pg_LWLockWaitListUnlock)
#define WAKEUP()	CALL(pg_LWLockWakeup)
#define LW_ACQ()	CALL(pg_LWLockAcquire)
#define LW_REL()	CALL(pg_LWLockRelease)
#define LW_DISOWN() CALL(pg_LWLockDisown)

static char why[256];
static int	failed_here;

#define EXPECT(cond, ...) do { \
	if (!failed_here && !(cond)) { failed_here = 1; snprintf(why, sizeof(why), __VA_ARGS__); } \
} while (0)

/* the request is outstanding: set by us, or turned into a grant */
#define ARMED() (KCTRL[0] == 1 || KCTRL[1] == 1)

static void
reset_all(int mask)
{
	memset(rseq_area, 0, sizeof(rseq_area));
	k_granted = 0;
	yield_calls = yield_returned_1 = 0;
	violations = 0;
	violation_what[0] = 0;
	num_held_lwlocks = 0;
	H_RESET_STATE();
	SliceExt.mask = mask;
	H_CTRL = KCTRL;
	failed_here = 0;
	why[0] = 0;
}

static int	npass,
			nfail,
			nskip;

static void
finish(const char *name)
{
	if (!failed_here && violations)
	{
		failed_here = 1;
		snprintf(why, sizeof(why), "%s", violation_what);
	}
	if (!failed_here && (SliceExt.depth != 0 || KCTRL[0] != 0))
	{
		failed_here = 1;
		snprintf(why, sizeof(why), "after every lock was released: depth %d, request %d (expected 0, 0)",
				 SliceExt.depth, KCTRL[0]);
	}
	if (failed_here)
	{
		nfail++;
		printf("FAIL %s -- %s\n", name, why);
	}
	else
	{
		npass++;
		printf("PASS %s\n", name);
	}
}

static void
skip(const char *name, const char *reason)
{
	nskip++;
	printf("SKIP %s -- %s\n", name, reason);
}

#define NEED_COUNTERS(name) do { if (!H_HAS_COUNTERS) { EXPECT(0, "the patch keeps no %s counter", name); } } while (0)

/* ---- scenarios ------------------------------------------------------------ */

static void
s_spin_simple(void)
{
	reset_all(SLICE_EXT_ALL);
	SPIN_ACQ();
	EXPECT(KCTRL[0] == 1, "no request while a spinlock is held");
	SPIN_REL();
	EXPECT(yield_calls == 0, "yield without a grant");
	finish("spinlock: request set while held, cleared at release");
}

static void
s_spin_grant_yield(void)
{
	reset_all(SLICE_EXT_ALL);
	SPIN_ACQ();
	k_grant();
	SPIN_REL();
	EXPECT(yield_calls == 1 && yield_returned_1 == 1, "granted hold released with %d yield(s)", yield_calls);
	finish("spinlock: a grant is given back with rseq_slice_yield at release");
}

static void
s_nested_spin_after_switch(void)
{
	reset_all(SLICE_EXT_ALL);
	SPIN_ACQ();
	k_switch();
	SPIN_ACQ();
	EXPECT(ARMED(), "a spinlock taken inside a hold after a switch left the hold without a request");
	SPIN_REL();
	SPIN_REL();
	finish("nested spinlock after a switch re-arms the request");
}

static void
s_lw_spin_after_switch(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_switch();
	SPIN_ACQ();
	EXPECT(ARMED(), "spinlock inside an LWLock hold after a sleep: no request");
	SPIN_REL();
	LW_REL();
	finish("spinlock inside an LWLock hold after a sleep re-arms");
}

static void
s_lw_lw_after_switch(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_switch();
	LW_ACQ();
	EXPECT(ARMED(), "second LWLock after a sleep: no request");
	LW_REL();
	LW_REL();
	finish("second LWLock after a sleep re-arms");
}

static void
s_lw_after_denial(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_deny();
	LW_ACQ();
	EXPECT(ARMED(), "request denied by the kernel and not re-armed at the next acquire");
	LW_REL();
	LW_REL();
	finish("acquire after a denied request re-arms");
}

static void
s_no_write_while_granted(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_grant();
	SPIN_ACQ();
	LW_ACQ();
	EXPECT(KCTRL[0] == 0 && KCTRL[1] == 1, "word changed during a grant: request %d granted %d", KCTRL[0], KCTRL[1]);
	LW_REL();
	SPIN_REL();
	LW_REL();
	EXPECT(yield_calls == 1, "%d yields at the end of a granted hold", yield_calls);
	finish("acquires inside a grant leave the word alone; the end yields");
}

static void
s_grant_switch_nested(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_grant();
	k_switch();					/* the grant expired, the task was switched out */
	LW_ACQ();
	EXPECT(ARMED(), "acquire after an expired grant: no request");
	LW_REL();
	LW_REL();
	finish("acquire after an expired grant re-arms");
}

static void
s_rearm_then_grant_yield(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_switch();
	SPIN_ACQ();
	k_grant();
	SPIN_REL();
	LW_REL();
	EXPECT(yield_calls == 1 && yield_returned_1 == 1, "a grant after the re-arm not given back (%d yields)", yield_calls);
	finish("a re-armed request can be granted and is yielded");
}

static void
s_grant_syscall_nested(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_grant();
	k_syscall();				/* I/O under the LWLock ends the grant */
	BUF_ACQ();
	EXPECT(ARMED(), "after a system call ended the grant, the next acquire did not re-arm");
	BUF_REL();
	LW_REL();
	finish("acquire after a system call ended a grant re-arms");
}

static void
s_loop_switches(void)
{
	int			i,
				armed = 0;

	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	for (i = 0; i < 10; i++)
	{
		k_switch();
		SPIN_ACQ();
		armed += ARMED();
		SPIN_REL();
	}
	LW_REL();
	EXPECT(armed == 10, "%d of 10 spinlocks after a switch ran with a request", armed);
	finish("ten switches inside one LWLock hold: every spinlock re-arms");
}

static void
s_bufhdr_armed(void)
{
	reset_all(SLICE_EXT_SPINLOCK);
	BUF_ACQ();
	EXPECT(KCTRL[0] == 1, "LockBufHdr holds the BM_LOCKED spinlock without a request");
	BUF_REL();
	finish("LockBufHdr (BM_LOCKED) is covered");
}

static void
s_bufhdr_in_lw_after_switch(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	k_switch();
	BUF_ACQ();
	EXPECT(ARMED(), "LockBufHdr under an LWLock after a sleep: no request");
	BUF_REL();
	LW_REL();
	finish("LockBufHdr inside an LWLock hold after a sleep re-arms");
}

static void
s_waitlist_armed(void)
{
	reset_all(SLICE_EXT_SPINLOCK);
	WL_ACQ();
	EXPECT(KCTRL[0] == 1, "LWLockWaitListLock holds LW_FLAG_LOCKED without a request");
	WL_REL();
	finish("LWLockWaitListLock (LW_FLAG_LOCKED) is covered");
}

static void
s_waitlist_wakeup(void)
{
	reset_all(SLICE_EXT_SPINLOCK);
	WAKEUP();
	EXPECT(SliceExt.depth == 0, "LWLockWakeup left depth %d", SliceExt.depth);
	SPIN_ACQ();
	EXPECT(KCTRL[0] == 1, "spinlock after LWLockWakeup: no request");
	SPIN_REL();
	finish("LWLockWakeup takes the wait list lock and releases it with its flags: balanced");
}

static void
s_disown_ends_hold(void)
{
	if (!HAVE_pg_LWLockDisown)
	{
		skip("LWLockDisown of the last LWLock ends the hold", "this PostgreSQL version has no LWLockDisown");
		return;
	}
	reset_all(SLICE_EXT_LWLOCK);
	LW_ACQ();
	LW_DISOWN();
	EXPECT(KCTRL[0] == 0, "the last LWLock disowned, request still set");
	EXPECT(SliceExt.depth == 0, "the last LWLock disowned, depth %d", SliceExt.depth);
	finish("LWLockDisown of the last LWLock ends the hold");
}

static void
s_disown_then_spin(void)
{
	if (!HAVE_pg_LWLockDisown)
	{
		skip("after LWLockDisown a spinlock hold is its own", "this PostgreSQL version has no LWLockDisown");
		return;
	}
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	LW_DISOWN();
	SPIN_ACQ();
	SPIN_REL();
	EXPECT(KCTRL[0] == 0, "a spinlock released after LWLockDisown left the request set");
	finish("after LWLockDisown a spinlock hold is its own");
	/* the lock is released later by whoever owns it now */
	num_held_lwlocks = 0;
}

static void
s_mode_spinlock(void)
{
	reset_all(SLICE_EXT_SPINLOCK);
	LW_ACQ();
	EXPECT(KCTRL[0] == 0, "slice_extension = spinlock asked for an extension around an LWLock");
	SPIN_ACQ();
	EXPECT(KCTRL[0] == 1, "slice_extension = spinlock: no request for a spinlock");
	SPIN_REL();
	LW_REL();
	finish("slice_extension = spinlock covers spinlocks only");
}

static void
s_mode_lwlock(void)
{
	reset_all(SLICE_EXT_LWLOCK);
	SPIN_ACQ();
	EXPECT(KCTRL[0] == 0, "slice_extension = lwlock asked for an extension around a spinlock");
	SPIN_REL();
	LW_ACQ();
	EXPECT(KCTRL[0] == 1, "slice_extension = lwlock: no request for an LWLock");
	LW_REL();
	finish("slice_extension = lwlock covers LWLocks only");
}

static void
s_mask_change_while_held(void)
{
	reset_all(SLICE_EXT_ALL);
	LW_ACQ();
	SliceExt.mask = SLICE_EXT_OFF;	/* SET slice_extension = off mid-hold */
	LW_REL();
	EXPECT(SliceExt.depth == 0, "depth %d after the setting changed under an LWLock", SliceExt.depth);
	finish("a change of the setting while an LWLock is held stays balanced");
}

static void
s_counts_rearm(void)
{
	reset_all(SLICE_EXT_ALL);
	NEED_COUNTERS("re-armed");
	LW_ACQ();
	k_switch();
	LW_ACQ();
	LW_REL();
	LW_REL();
	EXPECT(H_REARMED() == 1, "re-armed %lld, expected 1", (long long) H_REARMED());
	EXPECT(H_DROPPED() == 1, "dropped %lld, expected 1", (long long) H_DROPPED());
	finish("counts: a drop seen at a nested acquire is one drop and one re-arm");
}

static void
s_counts_yield(void)
{
	reset_all(SLICE_EXT_ALL);
	NEED_COUNTERS("granted-then-yielded");
	SPIN_ACQ();
	k_grant();
	SPIN_REL();
	EXPECT(H_YIELDED() == 1 && H_EXPIRED() == 0 && H_DROPPED() == 0,
		   "yielded %lld expired %lld dropped %lld, expected 1 0 0",
		   (long long) H_YIELDED(), (long long) H_EXPIRED(), (long long) H_DROPPED());
	finish("counts: granted then yielded");
}

static void
s_counts_expired(void)
{
	reset_all(SLICE_EXT_ALL);
	NEED_COUNTERS("granted-then-expired");
	LW_ACQ();
	k_grant();
	SPIN_ACQ();					/* sees the grant */
	SPIN_REL();
	k_switch();					/* the grant expired */
	LW_REL();
	EXPECT(H_EXPIRED() == 1 && H_DROPPED() == 0 && H_YIELDED() == 0,
		   "expired %lld dropped %lld yielded %lld, expected 1 0 0",
		   (long long) H_EXPIRED(), (long long) H_DROPPED(), (long long) H_YIELDED());
	finish("counts: a grant seen, then gone before release, is granted-then-expired");
}

static void
s_counts_dropped(void)
{
	reset_all(SLICE_EXT_ALL);
	NEED_COUNTERS("dropped-without-grant");
	SPIN_ACQ();
	k_switch();
	SPIN_REL();
	EXPECT(H_DROPPED() == 1 && H_EXPIRED() == 0, "dropped %lld expired %lld, expected 1 0",
		   (long long) H_DROPPED(), (long long) H_EXPIRED());
	finish("counts: a request cleared at a switch with no grant seen is dropped-without-grant");
}

static void
s_counts_acquires(void)
{
	reset_all(SLICE_EXT_ALL);
	NEED_COUNTERS("per-acquire");
	LW_ACQ();
	LW_ACQ();
	SPIN_ACQ();
	BUF_ACQ();
	BUF_REL();
	SPIN_REL();
	LW_REL();
	LW_REL();
	WL_ACQ();
	WL_REL();
	EXPECT(H_ACQ(SLICE_EXT_KIND_LWLOCK) == 2 && H_ACQ(SLICE_EXT_KIND_SPINLOCK) == 1 &&
		   H_ACQ(SLICE_EXT_KIND_BUFFER_HEADER) == 1 && H_ACQ(SLICE_EXT_KIND_WAIT_LIST) == 1,
		   "acquires lwlock %lld spinlock %lld buffer header %lld wait list %lld, expected 2 1 1 1",
		   (long long) H_ACQ(SLICE_EXT_KIND_LWLOCK), (long long) H_ACQ(SLICE_EXT_KIND_SPINLOCK),
		   (long long) H_ACQ(SLICE_EXT_KIND_BUFFER_HEADER), (long long) H_ACQ(SLICE_EXT_KIND_WAIT_LIST));
	EXPECT(H_HOLDS(SLICE_EXT_KIND_LWLOCK) == 1 && H_HOLDS(SLICE_EXT_KIND_WAIT_LIST) == 1 &&
		   H_HOLDS(SLICE_EXT_KIND_SPINLOCK) == 0,
		   "holds lwlock %lld wait list %lld spinlock %lld, expected 1 1 0",
		   (long long) H_HOLDS(SLICE_EXT_KIND_LWLOCK), (long long) H_HOLDS(SLICE_EXT_KIND_WAIT_LIST),
		   (long long) H_HOLDS(SLICE_EXT_KIND_SPINLOCK));
	finish("counts: every covered acquire (nested too) and every hold begun, by kind");
}

static void
s_counts_yield_raced(void)
{
	reset_all(SLICE_EXT_ALL);
	NEED_COUNTERS("granted-then-expired");
	SPIN_ACQ();
	k_grant();
	k_forget_grant();			/* revoked in the kernel, word not yet updated */
	SPIN_REL();
	EXPECT(yield_calls == 1, "%d yields", yield_calls);
	EXPECT(H_EXPIRED() == 1 && H_YIELDED() == 0, "yield returned 0: expired %lld yielded %lld, expected 1 0",
		   (long long) H_EXPIRED(), (long long) H_YIELDED());
	finish("counts: rseq_slice_yield returning 0 is counted as expired, not yielded");
}

int
main(void)
{
	s_spin_simple();
	s_spin_grant_yield();
	s_nested_spin_after_switch();
	s_lw_spin_after_switch();
	s_lw_lw_after_switch();
	s_lw_after_denial();
	s_no_write_while_granted();
	s_grant_switch_nested();
	s_rearm_then_grant_yield();
	s_grant_syscall_nested();
	s_loop_switches();
	s_bufhdr_armed();
	s_bufhdr_in_lw_after_switch();
	s_waitlist_armed();
	s_waitlist_wakeup();
	s_disown_ends_hold();
	s_disown_then_spin();
	s_mode_spinlock();
	s_mode_lwlock();
	s_mask_change_while_held();
	s_counts_rearm();
	s_counts_yield();
	s_counts_expired();
	s_counts_dropped();
	s_counts_acquires();
	s_counts_yield_raced();
	printf("summary passed=%d failed=%d skipped=%d\n", npass, nfail, nskip);
	return 0;
}
