/*
 * LD_PRELOAD shim for counting the patch's lock operations on a kernel
 * without the time slice extension (slicelab postgres lock-ops): it makes
 * the patch's probe succeed, so the hooks run their full protocol and
 * count every covered acquire.  The kernel below knows nothing of
 * slice_ctrl (a Linux 6.x rseq area ends at offset 28), so it never clears,
 * grants or denies: acquires and holds are counted exactly, rearmed and the
 * grant counters stay 0.  Not for anything but counting.
 *
 *   prctl(PR_RSEQ_SLICE_EXTENSION, GET|SET, ...)  returns 0
 *   getauxval(AT_RSEQ_FEATURE_SIZE)               returns 33
 *   getauxval(AT_RSEQ_ALIGN)                      returns 32
 * Everything else goes to glibc.  The server must run with
 * GLIBC_TUNABLES=glibc.pthread.rseq=0 so that it registers its own 64-byte
 * rseq area (which 6.x accepts).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>

int
prctl(int option, ...)
{
	static int (*real) (int, ...);
	va_list		ap;
	unsigned long a2, a3, a4, a5;

	va_start(ap, option);
	a2 = va_arg(ap, unsigned long);
	a3 = va_arg(ap, unsigned long);
	a4 = va_arg(ap, unsigned long);
	a5 = va_arg(ap, unsigned long);
	va_end(ap);
	if (option == 79 && (a2 == 1 || a2 == 2))
		return 0;
	if (!real)
		real = (int (*) (int, ...)) dlsym(RTLD_NEXT, "prctl");
	return real(option, a2, a3, a4, a5);
}

unsigned long
getauxval(unsigned long type)
{
	static unsigned long (*real) (unsigned long);

	if (type == 27)
		return 33;
	if (type == 28)
		return 32;
	if (!real)
		real = (unsigned long (*) (unsigned long)) dlsym(RTLD_NEXT, "getauxval");
	return real(type);
}
