/*
 * fuzz-vmchan.c: the decoder of the `vm` result channel (vmchan_parse in
 * src/runner/vmchan.c) on arbitrary bytes: the capture of a guest's
 * serial port, which a crashed or hostile guest controls entirely.
 *
 * Input: a capture, decoded as it is. Random bytes almost never carry a
 * right CRC-32, which would keep the fuzzer out of everything behind the
 * CRC check; so the capture is decoded a second time with the CRC of each
 * well-framed record recomputed, to reach the record semantics (sequence,
 * FILE chunks, OUTPUT streams, STATUS, END). A decoded capture must hold
 * NUL-terminated streams and findable files, and is released whether the
 * decoding succeeded or not, as `vm` does.
 */
#include "fuzz.h"
#include "runner/vmchan.h"

#include <zlib.h>

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Recompute the CRC of every record up to the first that is not well framed. */
static int fix_crcs(uint8_t *buf, size_t len)
{
	size_t off = 0;
	int changed = 0;

	while (len - off >= VMCHAN_HDR_BYTES && get_u32(buf + off) == VMCHAN_MAGIC) {
		uint32_t plen = get_u32(buf + off + 12), crc;

		if (plen > VMCHAN_MAX_PAYLOAD || len - off - VMCHAN_HDR_BYTES < plen)
			break;
		crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), buf + off + 4, 12);
		if (plen)
			crc = (uint32_t)crc32(crc, buf + off + VMCHAN_HDR_BYTES, plen);
		if (get_u32(buf + off + 16) != crc) {
			put_u32(buf + off + 16, crc);
			changed = 1;
		}
		off += VMCHAN_HDR_BYTES + plen;
	}
	return changed;
}

static void decode(const uint8_t *buf, size_t len)
{
	struct vmchan_result res;
	char why[256];
	size_t i;

	why[0] = '\0';
	if (!vmchan_parse(buf, len, &res, why, sizeof(why))) {
		FUZZ_CHECK(res.nrecords > 0);
		FUZZ_CHECK(res.out && strlen(res.out) <= res.out_len);
		FUZZ_CHECK(res.err && strlen(res.err) <= res.err_len);
		for (i = 0; i < res.nfiles; i++)
			FUZZ_CHECK(vmchan_find_file(&res, res.files[i].name) == &res.files[i]);
	} else {
		FUZZ_CHECK(why[0]);
	}
	vmchan_result_release(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	decode(data, size);
	if (size < VMCHAN_HDR_BYTES)
		return 0;
	/* An exact-size copy, so that reads past the end are still caught. */
	copy = xmalloc(size);
	memcpy(copy, data, size);
	if (fix_crcs(copy, size))
		decode(copy, size);
	free(copy);
	return 0;
}
