/*
 * fuzz-cpulist.c: parse_cpulist() (src/util/parse.c), which reads the
 * kernel's CPU lists ("0-3,5,7-8\n", /sys/devices/system/cpu/online).
 *
 * Input: two bytes giving the bitmap's size (1 to 4096 CPUs), then the
 * list. The bitmap is allocated to exactly the bytes that size needs, so
 * any write past it is caught; the count returned must be the number of
 * bits set, and no bit at or above the size may be set.
 */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t max_cpus, nbytes, i;
	uint8_t *bitmap;
	char *s;
	int count, bits = 0;

	if (size < 2)
		return 0;
	max_cpus = 1 + ((size_t)data[0] | (size_t)data[1] << 8) % 4096;
	nbytes = (max_cpus + 7) / 8;
	bitmap = xmalloc(nbytes);
	s = fuzz_cstr(data + 2, size - 2);
	count = parse_cpulist(s, bitmap, max_cpus);
	if (count >= 0) {
		for (i = 0; i < nbytes * 8; i++) {
			if (!(bitmap[i / 8] & (1u << (i % 8))))
				continue;
			FUZZ_CHECK(i < max_cpus);
			bits++;
		}
		FUZZ_CHECK(bits == count);
	}
	free(s);
	free(bitmap);
	return 0;
}
