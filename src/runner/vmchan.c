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

/* The record at the start of s->rec (whole): its checks, then the caller's. */
static int stream_record(struct vmchan_stream *s)
{
	const uint8_t *p = s->rec;
	uint32_t type = get_u32(p + 4), seq = get_u32(p + 8), plen = get_u32(p + 12);

	if (record_crc(p, p + VMCHAN_HDR_BYTES, plen) != get_u32(p + 16))
		return fail(s->why, sizeof(s->why), "corrupted record at byte %llu (CRC mismatch)",
			    (unsigned long long)s->off);
	if (seq < s->expect)
		return fail(s->why, sizeof(s->why), "duplicated record %u at byte %llu", seq,
			    (unsigned long long)s->off);
	if (seq > s->expect)
		return fail(s->why, sizeof(s->why), "missing record %u (next is %u) at byte %llu",
			    s->expect, seq, (unsigned long long)s->off);
	if (type == VMCHAN_END) {
		if (plen != 4 || get_u32(p + VMCHAN_HDR_BYTES) != seq)
			return fail(s->why, sizeof(s->why), "END record does not match %u records",
				    seq);
		s->ended = true;
	} else if (s->record(s->arg, type, p + VMCHAN_HDR_BYTES, plen, s->why, sizeof(s->why))) {
		return -1;
	}
	s->expect++;
	s->off += VMCHAN_HDR_BYTES + plen;
	return 0;
}

/* A failure of the stream: its reason, and nothing more is read. */
static int stream_fail(struct vmchan_stream *s, const char *fmt, ...) PRINTF_LIKE(2, 3);
static int stream_fail(struct vmchan_stream *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	s->failed = true;
	return -1;
}

int vmchan_stream_feed(struct vmchan_stream *s, const uint8_t *buf, size_t len)
{
	if (!s->rec && !s->failed)
		s->rec = xmalloc(VMCHAN_HDR_BYTES + VMCHAN_MAX_PAYLOAD);
	while (!s->failed && len) {
		size_t want, n;

		if (s->ended)
			return stream_fail(s, "%zu unexpected bytes after the END record", len);
		want = VMCHAN_HDR_BYTES + (s->have < VMCHAN_HDR_BYTES ? 0 : get_u32(s->rec + 12));
		n = want - s->have < len ? want - s->have : len;
		memcpy(s->rec + s->have, buf, n);
		s->have += n;
		buf += n;
		len -= n;
		if (s->have >= 4 && get_u32(s->rec) != VMCHAN_MAGIC)
			return stream_fail(s, "garbage at byte %llu (no record starts there)",
					   (unsigned long long)s->off);
		if (s->have < VMCHAN_HDR_BYTES)
			continue;
		if (get_u32(s->rec + 12) > VMCHAN_MAX_PAYLOAD)
			return stream_fail(s, "corrupted record at byte %llu (length %u)",
					   (unsigned long long)s->off, get_u32(s->rec + 12));
		if (s->have == VMCHAN_HDR_BYTES + get_u32(s->rec + 12)) {
			if (stream_record(s))
				s->failed = true;
			s->have = 0;
		}
	}
	return s->failed ? -1 : 0;
}

void vmchan_stream_release(struct vmchan_stream *s)
{
	free(s->rec);
	s->rec = NULL;
}

int vmchan_stream_end(struct vmchan_stream *s)
{
	if (s->failed)
		return -1;
	if (s->have) {
		s->failed = true;
		if (s->have >= 4 && get_u32(s->rec) != VMCHAN_MAGIC)
			return fail(s->why, sizeof(s->why), "garbage at byte %llu",
				    (unsigned long long)s->off);
		if (s->have < VMCHAN_HDR_BYTES)
			return fail(s->why, sizeof(s->why), "truncated record header at byte %llu",
				    (unsigned long long)s->off);
		return fail(s->why, sizeof(s->why),
			    "truncated record %u at byte %llu: %zu of %u payload bytes",
			    get_u32(s->rec + 8), (unsigned long long)s->off,
			    s->have - VMCHAN_HDR_BYTES, get_u32(s->rec + 12));
	}
	if (!s->expect) {
		s->failed = true;
		return fail(s->why, sizeof(s->why), "the guest sent nothing");
	}
	if (!s->ended) {
		s->failed = true;
		return fail(s->why, sizeof(s->why), "truncated: no END record after %u records",
			    s->expect);
	}
	return 0;
}

/* vmchan_parse()'s records: assembled into the result. */
struct assemble {
	struct vmchan_result *res;
	uint32_t prev_type;
};

static int assemble_record(void *arg, uint32_t type, const uint8_t *p, uint32_t len, char *why,
			   size_t whylen)
{
	struct assemble *a = arg;
	int ret = add_record(a->res, a->prev_type, type, p, len, why, whylen);

	a->prev_type = type;
	return ret;
}

int vmchan_parse(const uint8_t *buf, size_t len, struct vmchan_result *res, char *why,
		 size_t whylen)
{
	struct assemble a = { .res = res };
	struct vmchan_stream s = { .record = assemble_record, .arg = &a };
	int ret;

	memset(res, 0, sizeof(*res));
	ret = vmchan_stream_feed(&s, buf, len) || vmchan_stream_end(&s) ? -1 : 0;
	vmchan_stream_release(&s);
	if (ret)
		snprintf(why, whylen, "%s", s.why);
	res->nrecords = s.expect;
	if (!res->out)
		append(&res->out, &res->out_len, (const uint8_t *)"", 0);
	if (!res->err)
		append(&res->err, &res->err_len, (const uint8_t *)"", 0);
	return ret;
}

int vmchan_file_chunk(const uint8_t *p, uint32_t len, const char **name, uint32_t *namelen,
		      const uint8_t **chunk, uint32_t *chunklen, char *why, size_t whylen)
{
	if (len < 4 || (*namelen = get_u32(p)) == 0 || *namelen > len - 4 || *namelen > 255)
		return fail(why, whylen, "malformed FILE record");
	if (memchr(p + 4, '\0', *namelen) || memchr(p + 4, '/', *namelen))
		return fail(why, whylen, "FILE record with an invalid name");
	*name = (const char *)p + 4;
	*chunk = p + 4 + *namelen;
	*chunklen = len - 4 - *namelen;
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
