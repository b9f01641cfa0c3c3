/*
 * bcryptprimitives.dll for Wine 8 (Debian 12's), which lacks it: Go's
 * Windows runtime takes its random numbers from ProcessPrng there, as on
 * Windows 10 and later. This one fills the buffer from RtlGenRandom
 * (advapi32's SystemFunction036), which Wine has. release_test.go builds
 * it with mingw-w64 into the Wine prefix it runs clawd.exe in.
 */
#include <windows.h>
#define SystemFunction036 NTAPI SystemFunction036
#include <ntsecapi.h>
#undef SystemFunction036

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len) {
	while (len > 0) {
		ULONG n = len > 0x80000000 ? 0x80000000 : (ULONG)len;
		if (!RtlGenRandom(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
