/*
 * vmchan.c: framing and validation of the records a `vm` guest sends home
 * (the format is described in vmchan.h), and zlib's CRC-32 of each record
 * (the SHA-256 that `vm` uses for its caches is util/digest.c's).
 *
 * The decoder is strict on purpose: the only thing it accepts is a complete,
 * in-order, CRC-checked sequence ending in END. Anything else is a failed
 * round with a reason, never a partial import.
 */
#include "runner/vmchan.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static void put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void put_u64(uint8_t *p, uint64_t v)
{
	put_u32(p, (uint32_t)v);
	put_u32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const uint8_t *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

uint32_t vmchan_crc32(const void *buf, size_t len)
{
	uLong crc = crc32(0L, Z_NULL, 0);
	const Bytef *p = buf;

	while (len) {
		uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;

		crc = crc32(crc, p, n);
		p += n;
		len -= n;
	}
	return (uint32_t)crc;
}

/* The CRC of a record covers its type, seq and len fields, then the payload. */
static uint32_t record_crc(const uint8_t *hdr, const uint8_t *payload, uint32_t len)
{
	uLong crc = crc32(0L, Z_NULL, 0);

	crc = crc32(crc, hdr + 4, 12);
	if (len)
		crc = crc32(crc, payload, len);
	return (uint32_t)crc;
}

size_t vmchan_encode(uint8_t *out, uint32_t type, uint32_t seq, const void *payload, uint32_t len)
{
	put_u32(out, VMCHAN_MAGIC);
	put_u32(out + 4, type);
	put_u32(out + 8, seq);
	put_u32(out + 12, len);
	if (len)
		memcpy(out + VMCHAN_HDR_BYTES, payload, len);
	put_u32(out + 16, record_crc(out, out + VMCHAN_HDR_BYTES, len));
	return VMCHAN_HDR_BYTES + len;
}

int vmchan_send(struct vmchan_writer *w, uint32_t type, const void *payload, size_t len)
{
	uint8_t *rec;
	size_t n;

	if (len > VMCHAN_MAX_PAYLOAD)
		BUG("vmchan record of %zu bytes", len);
	rec = xmalloc(VMCHAN_HDR_BYTES + len);
	n = vmchan_encode(rec, type, w->seq, payload, (uint32_t)len);
	if (write_full(w->fd, rec, n) != (ssize_t)n) {
		free(rec);
		return error_errno("cannot write to the result channel");
	}
	free(rec);
	w->seq++;
	return 0;
}

int vmchan_send_file(struct vmchan_writer *w, const char *name, const void *data, size_t len)
{
	size_t namelen = strlen(name), off = 0;
	uint8_t *buf = xmalloc(4 + namelen + VMCHAN_FILE_CHUNK);
	int ret = 0;

	put_u32(buf, (uint32_t)namelen);
	memcpy(buf + 4, name, namelen);
	/* An empty file is still one record, so that it exists on the other side. */
	do {
		size_t n = len - off > VMCHAN_FILE_CHUNK ? VMCHAN_FILE_CHUNK : len - off;

		if (n)
			memcpy(buf + 4 + namelen, (const uint8_t *)data + off, n);
		if (vmchan_send(w, VMCHAN_FILE, buf, 4 + namelen + n)) {
			ret = -1;
			break;
		}
		off += n;
	} while (off < len);
	free(buf);
	return ret;
}

int vmchan_send_output(struct vmchan_writer *w, int stream, const void *text, size_t len)
{
	size_t off = 0;
	uint8_t *buf = xmalloc(1 + VMCHAN_FILE_CHUNK);
	int ret = 0;

	buf[0] = (uint8_t)stream;
	while (off < len) {
		size_t n = len - off > VMCHAN_FILE_CHUNK ? VMCHAN_FILE_CHUNK : len - off;

		memcpy(buf + 1, (const uint8_t *)text + off, n);
		if (vmchan_send(w, VMCHAN_OUTPUT, buf, 1 + n)) {
			ret = -1;
			break;
		}
		off += n;
	}
	free(buf);
	return ret;
}

int vmchan_send_status(struct vmchan_writer *w, int exit_status, uint64_t duration_ns,
		       uint64_t uptime_ns)
{
	uint8_t buf[20];

	put_u32(buf, (uint32_t)exit_status);
	put_u64(buf + 4, duration_ns);
	put_u64(buf + 12, uptime_ns);
	return vmchan_send(w, VMCHAN_STATUS, buf, sizeof(buf));
}

int vmchan_finish(struct vmchan_writer *w)
{
	uint8_t buf[4];

	put_u32(buf, w->seq);
	return vmchan_send(w, VMCHAN_END, buf, sizeof(buf));
}

static void append(char **dst, size_t *dlen, const uint8_t *src, size_t n)
{
	*dst = xrealloc(*dst, *dlen + n + 1);
	memcpy(*dst + *dlen, src, n);
	*dlen += n;
	(*dst)[*dlen] = '\0';
}

static int fail(char *why, size_t whylen, const char *fmt, ...) PRINTF_LIKE(3, 4);

static int fail(char *why, size_t whylen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whylen, fmt, ap);
	va_end(ap);
	return -1;
}

/* prev_type: the type of the record before this one (chunks of a file are consecutive). */
static int add_record(struct vmchan_result *res, uint32_t prev_type, uint32_t type,
		      const uint8_t *p, uint32_t len, char *why, size_t whylen)
{
	struct vmchan_file *f;
	uint32_t namelen;

	switch (type) {
	case VMCHAN_HELLO:
		if (res->release)
			return fail(why, whylen, "a second HELLO record");
		res->release = xmalloc(len + 1);
		memcpy(res->release, p, len);
		res->release[len] = '\0';
		if (strlen(res->release) != len)
			return fail(why, whylen, "HELLO record holds a NUL byte");
		return 0;
	case VMCHAN_FILE:
		if (len < 4 || (namelen = get_u32(p)) == 0 || namelen > len - 4 || namelen > 255)
			return fail(why, whylen, "malformed FILE record");
		if (memchr(p + 4, '\0', namelen) || memchr(p + 4, '/', namelen))
			return fail(why, whylen, "FILE record with an invalid name");
		f = res->nfiles && prev_type == VMCHAN_FILE ? &res->files[res->nfiles - 1] : NULL;
		if (!f || strlen(f->name) != namelen || memcmp(f->name, p + 4, namelen)) {
			size_t i;

			for (i = 0; i < res->nfiles; i++)
				if (strlen(res->files[i].name) == namelen &&
				    !memcmp(res->files[i].name, p + 4, namelen))
					return fail(why, whylen, "file '%s' sent twice",
						    res->files[i].name);
			res->files = xrealloc(res->files, (res->nfiles + 1) * sizeof(*res->files));
			f = &res->files[res->nfiles++];
			memset(f, 0, sizeof(*f));
			f->name = xmalloc(namelen + 1);
			memcpy(f->name, p + 4, namelen);
			f->name[namelen] = '\0';
		}
		f->data = xrealloc(f->data, f->len + (len - 4 - namelen) + 1);
		memcpy(f->data + f->len, p + 4 + namelen, len - 4 - namelen);
		f->len += len - 4 - namelen;
		return 0;
	case VMCHAN_OUTPUT:
		if (len < 1 || (p[0] != 1 && p[0] != 2))
			return fail(why, whylen, "malformed OUTPUT record");
		if (p[0] == 1)
			append(&res->out, &res->out_len, p + 1, len - 1);
		else
			append(&res->err, &res->err_len, p + 1, len - 1);
		return 0;
	case VMCHAN_STATUS:
		if (len != 20)
			return fail(why, whylen, "malformed STATUS record");
		if (res->have_status)
			return fail(why, whylen, "a second STATUS record");
		res->have_status = 1;
		res->exit_status = (int)get_u32(p);
		res->duration_ns = get_u64(p + 4);
		res->uptime_ns = get_u64(p + 12);
		return 0;
	default:
		return fail(why, whylen, "unknown record type %u", type);
	}
}

int vmchan_parse(const uint8_t *buf, size_t len, struct vmchan_result *res, char *why,
		 size_t whylen)
{
	size_t off = 0;
	uint32_t expect = 0, prev_type = 0;
	int ended = 0;

	memset(res, 0, sizeof(*res));
	if (len == 0)
		return fail(why, whylen, "the guest sent nothing");
	while (off < len) {
		uint32_t type, seq, plen, crc;
		const uint8_t *p = buf + off;

		if (ended)
			return fail(why, whylen, "%zu unexpected bytes after the END record",
				    len - off);
		if (len - off < VMCHAN_HDR_BYTES) {
			/* only the bytes that are there: the magic needs 4 */
			if (len - off >= 4 && get_u32(p) != VMCHAN_MAGIC)
				return fail(why, whylen, "garbage at byte %zu", off);
			return fail(why, whylen, "truncated record header at byte %zu", off);
		}
		if (get_u32(p) != VMCHAN_MAGIC)
			return fail(why, whylen, "garbage at byte %zu (no record starts there)",
				    off);
		type = get_u32(p + 4);
		seq = get_u32(p + 8);
		plen = get_u32(p + 12);
		crc = get_u32(p + 16);
		if (plen > VMCHAN_MAX_PAYLOAD)
			return fail(why, whylen, "corrupted record at byte %zu (length %u)", off,
				    plen);
		if (len - off - VMCHAN_HDR_BYTES < plen)
			return fail(why, whylen,
				    "truncated record %u at byte %zu: %zu of %u payload bytes", seq,
				    off, len - off - VMCHAN_HDR_BYTES, plen);
		if (record_crc(p, p + VMCHAN_HDR_BYTES, plen) != crc)
			return fail(why, whylen, "corrupted record at byte %zu (CRC mismatch)",
				    off);
		if (seq < expect)
			return fail(why, whylen, "duplicated record %u at byte %zu", seq, off);
		if (seq > expect)
			return fail(why, whylen, "missing record %u (next is %u) at byte %zu",
				    expect, seq, off);
		if (type == VMCHAN_END) {
			if (plen != 4 || get_u32(p + VMCHAN_HDR_BYTES) != seq)
				return fail(why, whylen, "END record does not match %u records",
					    seq);
			ended = 1;
		} else if (add_record(res, prev_type, type, p + VMCHAN_HDR_BYTES, plen, why,
				      whylen)) {
			return -1;
		}
		prev_type = type;
		expect++;
		off += VMCHAN_HDR_BYTES + plen;
	}
	if (!ended)
		return fail(why, whylen, "truncated: no END record after %u records", expect);
	res->nrecords = expect;
	if (!res->out)
		append(&res->out, &res->out_len, (const uint8_t *)"", 0);
	if (!res->err)
		append(&res->err, &res->err_len, (const uint8_t *)"", 0);
	return 0;
}

void vmchan_result_release(struct vmchan_result *res)
{
	size_t i;

	free(res->release);
	free(res->out);
	free(res->err);
	for (i = 0; i < res->nfiles; i++) {
		free(res->files[i].name);
		free(res->files[i].data);
	}
	free(res->files);
	memset(res, 0, sizeof(*res));
}

const struct vmchan_file *vmchan_find_file(const struct vmchan_result *res, const char *name)
{
	size_t i;

	for (i = 0; i < res->nfiles; i++)
		if (!strcmp(res->files[i].name, name))
			return &res->files[i];
	return NULL;
}
