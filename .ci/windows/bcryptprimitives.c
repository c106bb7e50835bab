/*
 * bcryptprimitives.dll for Wine 8, which lacks it: Go's Windows runtime
 * (since Go 1.22) loads ProcessPrng from this DLL at start and stops with
 * "bcryptprimitives.dll not found" without it. ProcessPrng fills the
 * buffer from RtlGenRandom (advapi32's SystemFunction036), which Wine has.
 * Built by .ci/windows/lane.sh with MinGW-w64 and bcryptprimitives.def;
 * used only to run garc.exe under Wine in CI, never shipped.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
