/*
 * t-vmchan.c: the result channel of `wakebench vm`: records written by the
 * guest side decode to what was sent; every truncation, every flipped
 * byte, a duplicated, missing or reordered record, garbage before the
 * first record and bytes after END are all rejected, without reading a
 * byte past the input (which ends at a guard page here). Also the digests:
 * CRC-32 and SHA-256 against published test vectors.
 *
 * Run as `t-vmchan --send CHANNEL RELEASE DB [STDOUT]` it is also the
 * test-only stand-in for a guest (tests/e2e/t6003): it writes what a guest
 * sends home, the store DB included, into the file CHANNEL.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "runner/vmchan.h"
#include "util/digest.h"
#include "util/util.h"

/* A capture as the host sees it: what a guest wrote on its channel. */
struct capture {
	uint8_t *buf;
	size_t len;
};

static struct capture capture_of(void (*send)(struct vmchan_writer *w))
{
	char path[] = "/tmp/t-vmchan.XXXXXX";
	struct vmchan_writer w = { 0 };
	struct capture c;
	char *data;

	w.fd = mkstemp(path);
	assert_true(w.fd >= 0);
	send(&w);
	close(w.fd);
	assert_int_equal(read_file(path, &data, &c.len), 0);
	unlink(path);
	c.buf = (uint8_t *)data;
	return c;
}

static uint8_t big[200000];

static void send_full(struct vmchan_writer *w)
{
	size_t i;

	for (i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7 + i / 251);
	assert_int_equal(vmchan_send(w, VMCHAN_HELLO, "6.1.0-57-amd64", 14), 0);
	assert_int_equal(vmchan_send_output(w, 1, "table\n", 6), 0);
	assert_int_equal(vmchan_send_output(w, 2, "warning\n", 8), 0);
	assert_int_equal(vmchan_send_file(w, "results.db", big, sizeof(big)), 0);
	assert_int_equal(vmchan_send_file(w, "empty", "", 0), 0);
	assert_int_equal(vmchan_send_status(w, 3, 1234567890123ull, 5000000000ull), 0);
	assert_int_equal(vmchan_finish(w), 0);
}

static void send_small(struct vmchan_writer *w)
{
	assert_int_equal(vmchan_send(w, VMCHAN_HELLO, "6.12.117", 8), 0);
	assert_int_equal(vmchan_send_file(w, "results.db", "SQLite format 3", 15), 0);
	assert_int_equal(vmchan_send_status(w, 0, 1, 2), 0);
	assert_int_equal(vmchan_finish(w), 0);
}

static void test_round_trip(void **state)
{
	struct capture c = capture_of(send_full);
	struct vmchan_result r;
	const struct vmchan_file *f;
	char why[256];

	(void)state;
	assert_int_equal(vmchan_parse(c.buf, c.len, &r, why, sizeof(why)), 0);
	assert_string_equal(r.release, "6.1.0-57-amd64");
	assert_string_equal(r.out, "table\n");
	assert_string_equal(r.err, "warning\n");
	assert_int_equal(r.have_status, 1);
	assert_int_equal(r.exit_status, 3);
	assert_true(r.duration_ns == 1234567890123ull);
	assert_true(r.uptime_ns == 5000000000ull);
	f = vmchan_find_file(&r, "results.db");
	assert_non_null(f);
	assert_int_equal(f->len, sizeof(big));
	assert_memory_equal(f->data, big, sizeof(big));
	f = vmchan_find_file(&r, "empty");
	assert_non_null(f);
	assert_int_equal(f->len, 0);
	assert_null(vmchan_find_file(&r, "other"));
	/* HELLO, 2 OUTPUT, 4 chunks of results.db, empty, STATUS, END */
	assert_int_equal(r.nrecords, 10);
	vmchan_result_release(&r);
	free(c.buf);
}

static void test_truncated(void **state)
{
	struct capture c = capture_of(send_small), big_c = capture_of(send_full);
	struct vmchan_result r;
	char why[256];
	size_t cut;

	(void)state;
	/* Every prefix of a capture is rejected, and says so. */
	for (cut = 0; cut < c.len; cut++) {
		assert_int_equal(vmchan_parse(c.buf, cut, &r, why, sizeof(why)), -1);
		vmchan_result_release(&r);
	}
	assert_int_equal(vmchan_parse(c.buf, c.len - 1, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "truncated"));
	vmchan_result_release(&r);
	assert_int_equal(vmchan_parse(c.buf, 0, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "nothing"));
	vmchan_result_release(&r);
	/* Cut between records: no END. */
	assert_int_equal(vmchan_parse(big_c.buf, VMCHAN_HDR_BYTES + 14, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no END"));
	vmchan_result_release(&r);
	for (cut = 1; cut < big_c.len; cut += 997) {
		assert_int_equal(vmchan_parse(big_c.buf, cut, &r, why, sizeof(why)), -1);
		vmchan_result_release(&r);
	}
	free(c.buf);
	free(big_c.buf);
}

static void test_corrupted(void **state)
{
	struct capture c = capture_of(send_small);
	struct vmchan_result r;
	char why[256];
	size_t i;
	int bit;

	(void)state;
	/* Any single flipped bit anywhere is caught (magic, header or CRC'd payload). */
	for (i = 0; i < c.len; i++) {
		for (bit = 0; bit < 8; bit++) {
			c.buf[i] ^= (uint8_t)(1u << bit);
			assert_int_equal(vmchan_parse(c.buf, c.len, &r, why, sizeof(why)), -1);
			vmchan_result_release(&r);
			c.buf[i] ^= (uint8_t)(1u << bit);
		}
	}
	c.buf[VMCHAN_HDR_BYTES + 2] ^= 0x20; /* in HELLO's payload */
	assert_int_equal(vmchan_parse(c.buf, c.len, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "CRC"));
	vmchan_result_release(&r);
	c.buf[VMCHAN_HDR_BYTES + 2] ^= 0x20;
	assert_int_equal(vmchan_parse(c.buf, c.len, &r, why, sizeof(why)), 0);
	vmchan_result_release(&r);
	free(c.buf);
}

/* Offsets of the records of a valid capture. */
static size_t record_offsets(const struct capture *c, size_t *off, size_t max)
{
	size_t n = 0, at = 0;

	while (at < c->len && n < max) {
		uint32_t len = (uint32_t)c->buf[at + 12] | (uint32_t)c->buf[at + 13] << 8 |
			       (uint32_t)c->buf[at + 14] << 16 | (uint32_t)c->buf[at + 15] << 24;

		off[n++] = at;
		at += VMCHAN_HDR_BYTES + len;
	}
	off[n] = at;
	return n;
}

static void test_duplicated_missing_reordered(void **state)
{
	struct capture c = capture_of(send_small);
	struct vmchan_result r;
	size_t off[8], n, k;
	char why[256];

	(void)state;
	n = record_offsets(&c, off, 7);
	assert_int_equal(n, 4);
	for (k = 0; k < n; k++) {
		size_t rlen = off[k + 1] - off[k];
		uint8_t *dup = malloc(c.len + rlen), *drop = malloc(c.len);

		/* record k twice in a row */
		memcpy(dup, c.buf, off[k + 1]);
		memcpy(dup + off[k + 1], c.buf + off[k], rlen);
		memcpy(dup + off[k + 1] + rlen, c.buf + off[k + 1], c.len - off[k + 1]);
		assert_int_equal(vmchan_parse(dup, c.len + rlen, &r, why, sizeof(why)), -1);
		if (k + 1 < n)
			assert_non_null(strstr(why, "duplicated"));
		else
			assert_non_null(strstr(why, "after the END"));
		vmchan_result_release(&r);

		/* record k left out */
		memcpy(drop, c.buf, off[k]);
		memcpy(drop + off[k], c.buf + off[k + 1], c.len - off[k + 1]);
		assert_int_equal(vmchan_parse(drop, c.len - rlen, &r, why, sizeof(why)), -1);
		if (k + 1 < n)
			assert_non_null(strstr(why, "missing record"));
		vmchan_result_release(&r);
		free(dup);
		free(drop);
	}
	/* records 1 and 2 swapped */
	{
		uint8_t *sw = malloc(c.len);
		size_t l1 = off[2] - off[1], l2 = off[3] - off[2];

		memcpy(sw, c.buf, off[1]);
		memcpy(sw + off[1], c.buf + off[2], l2);
		memcpy(sw + off[1] + l2, c.buf + off[1], l1);
		memcpy(sw + off[3], c.buf + off[3], c.len - off[3]);
		assert_int_equal(vmchan_parse(sw, c.len, &r, why, sizeof(why)), -1);
		vmchan_result_release(&r);
		free(sw);
	}
	free(c.buf);
}

static void test_garbage(void **state)
{
	struct capture c = capture_of(send_small);
	const char *noise = "[    0.123456] serial8250: ttyS1 at I/O 0x2f8\r\n";
	struct vmchan_result r;
	uint8_t *g = malloc(c.len + strlen(noise));
	char why[256];

	(void)state;
	memcpy(g, noise, strlen(noise));
	memcpy(g + strlen(noise), c.buf, c.len);
	assert_int_equal(vmchan_parse(g, c.len + strlen(noise), &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "garbage at byte 0"));
	vmchan_result_release(&r);
	memcpy(g, c.buf, c.len);
	memcpy(g + c.len, noise, strlen(noise));
	assert_int_equal(vmchan_parse(g, c.len + strlen(noise), &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "after the END"));
	vmchan_result_release(&r);
	free(g);
	free(c.buf);
}

static void send_file_twice(struct vmchan_writer *w)
{
	assert_int_equal(vmchan_send_file(w, "results.db", "a", 1), 0);
	assert_int_equal(vmchan_send_output(w, 1, "x", 1), 0);
	assert_int_equal(vmchan_send_file(w, "results.db", "b", 1), 0);
	assert_int_equal(vmchan_finish(w), 0);
}

static void send_bad_name(struct vmchan_writer *w)
{
	assert_int_equal(vmchan_send_file(w, "../etc/passwd", "a", 1), 0);
	assert_int_equal(vmchan_finish(w), 0);
}

static void test_semantics(void **state)
{
	struct capture c = capture_of(send_file_twice), d = capture_of(send_bad_name);
	struct vmchan_result r;
	char why[256];

	(void)state;
	assert_int_equal(vmchan_parse(c.buf, c.len, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "sent twice"));
	vmchan_result_release(&r);
	assert_int_equal(vmchan_parse(d.buf, d.len, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "invalid name"));
	vmchan_result_release(&r);
	free(c.buf);
	free(d.buf);
}

static void test_crc32(void **state)
{
	(void)state;
	assert_int_equal(vmchan_crc32("123456789", 9), 0xCBF43926u);
	assert_int_equal(vmchan_crc32("", 0), 0);
}

static void test_sha256(void **state)
{
	static const char *const abc56 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	struct sha256 c;
	uint8_t d[32];
	char hex[65], *million;
	size_t i;

	(void)state;
	sha256_hex("", 0, hex);
	assert_string_equal(hex,
			    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_hex("abc", 3, hex);
	assert_string_equal(hex,
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_hex(abc56, strlen(abc56), hex);
	assert_string_equal(hex,
			    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	million = malloc(1000000);
	memset(million, 'a', 1000000);
	sha256_hex(million, 1000000, hex);
	assert_string_equal(hex,
			    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* The same in uneven pieces. */
	sha256_init(&c);
	for (i = 0; i < 1000000;) {
		size_t n = 1 + (i * 31) % 97;

		if (n > 1000000 - i)
			n = 1000000 - i;
		sha256_update(&c, million + i, n);
		i += n;
	}
	sha256_final(&c, d);
	assert_int_equal(d[0], 0xcd);
	assert_int_equal(d[31], 0xd0);
	free(million);
}

static void test_sha256_file(void **state)
{
	char path[] = "/tmp/t-vmchan-sha.XXXXXX", hex[65];
	int fd = mkstemp(path);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write_full(fd, "abc", 3), 3);
	close(fd);
	assert_int_equal(sha256_file_hex(path, hex), 0);
	assert_string_equal(hex,
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	unlink(path);
	assert_int_equal(sha256_file_hex(path, hex), -1);
}

/*
 * Copy len bytes so that they end exactly where an inaccessible page
 * begins: a read past the input faults, with or without the sanitizers.
 */
static uint8_t *at_guard_page(const void *data, size_t len, void **map, size_t *maplen)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), n = (len + page - 1) / page + 1;
	uint8_t *m;

	*maplen = n * page;
	m = mmap(NULL, *maplen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(mprotect(m + (n - 1) * page, page, PROT_NONE), 0);
	*map = m;
	memcpy(m + (n - 1) * page - len, data, len);
	return m + (n - 1) * page - len;
}

static void test_short_tail(void **state)
{
	struct capture c = capture_of(send_small);
	struct vmchan_result r;
	char why[256];
	size_t extra, maplen;
	void *map;
	uint8_t *in;

	(void)state;
	/* the one-byte input "W" */
	in = at_guard_page("W", 1, &map, &maplen);
	assert_int_equal(vmchan_parse(in, 1, &r, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "truncated record header at byte 0"));
	vmchan_result_release(&r);
	munmap(map, maplen);
	/* a whole channel followed by 1..3 bytes, and by 4 bytes of garbage */
	for (extra = 1; extra <= 4; extra++) {
		uint8_t *buf = malloc(c.len + extra);

		memcpy(buf, c.buf, c.len);
		memset(buf + c.len, 'W', extra);
		in = at_guard_page(buf, c.len + extra, &map, &maplen);
		assert_int_equal(vmchan_parse(in, c.len + extra, &r, why, sizeof(why)), -1);
		assert_non_null(strstr(why, "after the END"));
		vmchan_result_release(&r);
		munmap(map, maplen);
		free(buf);
	}
	/* records cut short inside their header, 1..3 bytes in */
	for (extra = 1; extra <= 3; extra++) {
		in = at_guard_page(c.buf, extra, &map, &maplen);
		assert_int_equal(vmchan_parse(in, extra, &r, why, sizeof(why)), -1);
		assert_non_null(strstr(why, "truncated record header at byte 0"));
		vmchan_result_release(&r);
		munmap(map, maplen);
	}
	free(c.buf);
}

/* --send CHANNEL RELEASE DB [STDOUT]: what a guest sends, into the file CHANNEL. */
static int send_main(int argc, char **argv)
{
	struct vmchan_writer w = { 0 };
	const char *out = argc > 5 ? argv[5] : "";
	char *db;
	size_t len;

	if (argc < 5) {
		fprintf(stderr, "usage: t-vmchan --send CHANNEL RELEASE DB [STDOUT]\n");
		return 2;
	}
	if (read_file(argv[4], &db, &len)) {
		perror(argv[4]);
		return 1;
	}
	w.fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (w.fd < 0 || vmchan_send(&w, VMCHAN_HELLO, argv[3], strlen(argv[3])) ||
	    (*out && vmchan_send_output(&w, 1, out, strlen(out))) ||
	    vmchan_send_file(&w, "results.db", db, len) || vmchan_send_status(&w, 0, 1000, 2000) ||
	    vmchan_finish(&w) || close(w.fd)) {
		perror(argv[2]);
		return 1;
	}
	free(db);
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupted),
		cmocka_unit_test(test_duplicated_missing_reordered),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_semantics),
		cmocka_unit_test(test_crc32),
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_sha256_file),
		cmocka_unit_test(test_short_tail),
	};

	if (argc > 1 && !strcmp(argv[1], "--send"))
		return send_main(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
