/*
 * embed.c: the raw data of a report, inside the report: the JSON document
 * `wakebench export` writes, compressed with zlib, in base64 lines of 76
 * characters, as the text of a <pre id="wakebench-data"> in a collapsed
 * <details> element, with its byte counts and SHA-256 as attributes.
 *
 * Why text and not a <script type="application/json"> or a comment: mail
 * clients' attachment viewers and web mail sanitise HTML before showing
 * it, and the first things they drop are script elements (whatever their
 * type), then comments; some mail gateways quarantine any HTML attachment
 * with a script in it. Element text survives a sanitiser, a "save as" of
 * the rendered page and copy and paste. The base64 alphabet has nothing
 * HTML would escape, it is ASCII (a charset conversion cannot touch it),
 * and its decoder skips white space, so re-wrapped lines, CRLF line ends
 * and a quoted-printable transfer encoding leave it intact; 76-character
 * lines stay under SMTP's 998. The checksum turns any other damage into a
 * refusal instead of a partial import.
 */
#include "render/render.h"
#include "util/digest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

#define B64_LINE 76

/* Base64 of in[0..n) onto out, B64_LINE characters a line, *col the current column. */
static void b64_put(struct sbuf *out, const unsigned char *in, size_t n, size_t *col, bool last)
{
	char quad[5];
	size_t i;

	for (i = 0; i + 3 <= n || (last && i < n); i += 3) {
		sbuf_add(out, quad, base64_encode(in + i, n - i < 3 ? n - i : 3, quad));
		*col += 4;
		if (*col >= B64_LINE) {
			sbuf_add(out, "\n", 1);
			*col = 0;
		}
	}
}

int embed_write(struct sbuf *out, const char *doc, size_t len, size_t limit, size_t *encoded)
{
	struct sbuf body = { 0 };
	unsigned char zout[65536], carry[3];
	size_t ncarry = 0, col = 0, zbytes = 0;
	char sha[65];
	z_stream z;
	int zr;

	memset(&z, 0, sizeof(z));
	/* level 1: the data is mostly digits, which no level compresses much better, and time
	 * counts */
	if (deflateInit(&z, 1) != Z_OK)
		BUG("deflateInit failed");
	z.next_in = (unsigned char *)(uintptr_t)doc;
	z.avail_in = 0;
	do {
		size_t chunk = len - (size_t)((const char *)z.next_in - doc), have, take, i;

		if (!z.avail_in) {
			z.avail_in = (uInt)(chunk > (1u << 20) ? 1u << 20 : chunk);
		}
		z.next_out = zout;
		z.avail_out = sizeof(zout);
		zr = deflate(&z, z.avail_in == chunk ? Z_FINISH : Z_NO_FLUSH);
		if (zr == Z_STREAM_ERROR)
			BUG("deflate failed");
		have = sizeof(zout) - z.avail_out;
		zbytes += have;
		/* whole triplets go out now; up to two bytes wait for the next chunk */
		i = 0;
		while (ncarry && ncarry < 3 && i < have)
			carry[ncarry++] = zout[i++];
		if (ncarry == 3) {
			b64_put(&body, carry, 3, &col, false);
			ncarry = 0;
		}
		take = (have - i) / 3 * 3;
		b64_put(&body, zout + i, take, &col, false);
		for (i += take; i < have; i++)
			carry[ncarry++] = zout[i];
		if (limit && body.len > limit) {
			*encoded = body.len;
			deflateEnd(&z);
			sbuf_release(&body);
			return -1;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	b64_put(&body, carry, ncarry, &col, true);
	if (col)
		sbuf_add(&body, "\n", 1);
	*encoded = body.len;
	sha256_hex(doc, len, sha);
	sbuf_addf(out,
		  "<pre id=\"" EMBED_ID "\" data-format=\"wakebench-export\" "
		  "data-encoding=\"zlib+base64\" data-bytes=\"%zu\" data-compressed=\"%zu\" "
		  "data-sha256=\"%s\">\n",
		  len, zbytes, sha);
	sbuf_add(out, body.buf ? body.buf : "", body.len);
	sbuf_puts(out, "</pre>\n");
	sbuf_release(&body);
	return 0;
}

/* ---- reading it back ---- */

static const char *find(const char *hay, size_t n, const char *needle)
{
	return memmem(hay, n, needle, strlen(needle));
}

bool embed_detect(const char *buf, size_t len)
{
	static const char doctype[] = "<!DOCTYPE html>",
			  gen[] = "<meta name=\"generator\" content=\"wakebench ";
	size_t i = 0;

	while (i < len && strchr(" \t\r\n", buf[i]) && buf[i])
		i++;
	return len - i >= sizeof(doctype) - 1 &&
	       !strncasecmp(buf + i, doctype, sizeof(doctype) - 1) &&
	       find(buf, len < 2048 ? len : 2048, gen);
}

/* The block's start tag: the first at a line's start (after indentation only). */
static const char *block_start(const char *html, size_t len)
{
	static const char tag[] = "<pre id=\"" EMBED_ID "\"";
	const char *p = html, *q;

	while ((p = find(p, (size_t)(html + len - p), tag))) {
		for (q = p; q > html && (q[-1] == ' ' || q[-1] == '\t'); q--)
			;
		if (q > html && (q[-1] == '\n' || q[-1] == '\r'))
			return p;
		p++;
	}
	return NULL;
}

/* The value of attribute name="..." within tag[0..n), as a number. */
static int attr_size(const char *tag, size_t n, const char *name, size_t *out)
{
	char key[64];
	const char *p;
	char *end;

	snprintf(key, sizeof(key), " %s=\"", name);
	p = find(tag, n, key);
	if (!p)
		return -1;
	p += strlen(key);
	errno = 0;
	*out = (size_t)strtoull(p, &end, 10);
	return end == p || *end != '"' || errno ? -1 : 0;
}

struct embed_reader {
	z_stream z;
	struct sha256 sha;
	size_t out, bytes;
	int (*put)(void *arg, const void *buf, size_t len);
	void *arg;
	int zr;
	bool stopped;
};

/* Inflate the compressed bytes in[0..n) and hand on what comes out. */
static void embed_inflate(struct embed_reader *r, const unsigned char *in, size_t n)
{
	unsigned char buf[65536];

	if (r->zr != Z_OK)
		return; /* ended or failed: the rest is only counted */
	r->z.next_in = (unsigned char *)(uintptr_t)in;
	r->z.avail_in = (uInt)n;
	while (!r->stopped && r->zr == Z_OK && (r->z.avail_in || r->z.avail_out == 0)) {
		size_t got;

		r->z.next_out = buf;
		r->z.avail_out = sizeof(buf);
		r->zr = inflate(&r->z, Z_NO_FLUSH);
		if (r->zr == Z_BUF_ERROR && r->z.avail_out == sizeof(buf))
			r->zr = Z_OK; /* needs more input */
		got = sizeof(buf) - r->z.avail_out;
		if (r->out + got > r->bytes) {
			r->zr = Z_DATA_ERROR; /* more than announced: stop before it grows */
			return;
		}
		r->out += got;
		sha256_update(&r->sha, buf, got);
		if (got && r->put(r->arg, buf, got))
			r->stopped = true;
		if (!r->z.avail_in && r->z.avail_out)
			break;
	}
}

/* The block's start tag: its sizes and checksum; -1 with why. */
static int embed_tag(const char *tag, size_t tagn, size_t *bytes, size_t *zbytes, char want[65],
		     char *why, size_t whylen)
{
	const char *sha = find(tag, tagn, " data-sha256=\"");

	if (!find(tag, tagn, " data-encoding=\"zlib+base64\"") ||
	    attr_size(tag, tagn, "data-bytes", bytes) ||
	    attr_size(tag, tagn, "data-compressed", zbytes) || !sha ||
	    (size_t)(tag + tagn - sha) < 14 + 64 + 1) {
		snprintf(why, whylen, "its raw data block has an unknown encoding or no sizes");
		return -1;
	}
	memcpy(want, sha + 14, 64);
	want[64] = '\0';
	return 0;
}

/*
 * Decode the base64 of body[0..end) (html: for the byte offset in a
 * message) and inflate it as it comes; *nz gets the compressed bytes.
 */
static int embed_decode(struct embed_reader *r, const char *html, const char *body, const char *end,
			size_t *nz, char *why, size_t whylen)
{
	unsigned char quad[3 * 1024];
	unsigned acc = 0, nacc = 0;
	size_t nq = 0;
	const char *p;

	for (p = body; p < end && !r->stopped; p++) {
		int v;

		if (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
			continue;
		if (*p == '=')
			break;
		v = base64_value((unsigned char)*p);
		if (v < 0) {
			snprintf(why, whylen,
				 "its raw data block has a character that is not base64 (byte %zu)",
				 (size_t)(p - html));
			return -1;
		}
		acc = acc << 6 | (unsigned)v;
		if (++nacc == 4) {
			quad[nq++] = (unsigned char)(acc >> 16);
			quad[nq++] = (unsigned char)(acc >> 8);
			quad[nq++] = (unsigned char)acc;
			acc = nacc = 0;
			if (nq == sizeof(quad)) {
				embed_inflate(r, quad, nq);
				*nz += nq;
				nq = 0;
			}
		}
	}
	if (nacc == 2) {
		quad[nq++] = (unsigned char)(acc >> 4);
	} else if (nacc >= 3) {
		quad[nq++] = (unsigned char)(acc >> 10);
		quad[nq++] = (unsigned char)(acc >> 2);
	}
	embed_inflate(r, quad, nq);
	*nz += nq;
	return 0;
}

/* After the block was read whole: its sizes and its checksum. */
static int embed_verify(struct embed_reader *r, size_t nz, size_t zbytes, const char *want,
			char *why, size_t whylen)
{
	uint8_t digest[32];
	char got[65];
	int i;

	sha256_final(&r->sha, digest);
	if (nz != zbytes) {
		snprintf(why, whylen,
			 "its raw data block holds %zu bytes where it announces %zu (cut or "
			 "altered)",
			 nz, zbytes);
		return -1;
	}
	if (r->zr != Z_STREAM_END || r->out != r->bytes) {
		snprintf(why, whylen,
			 "its raw data block does not decompress to the %zu bytes it announces",
			 r->bytes);
		return -1;
	}
	for (i = 0; i < 32; i++)
		snprintf(got + 2 * i, 3, "%02x", digest[i]);
	if (strcmp(got, want)) {
		snprintf(why, whylen, "its raw data block fails its SHA-256 check");
		return -1;
	}
	return 0;
}

int embed_read(const char *html, size_t len, const struct embed_limits *lim,
	       int (*put)(void *arg, const void *buf, size_t len), void *arg, char *why,
	       size_t whylen)
{
	const char *tag = block_start(html, len), *gt, *end;
	struct embed_reader r = { .put = put, .arg = arg, .zr = Z_OK };
	size_t zbytes, nz = 0;
	char want[65];
	int ret;

	if (!tag) {
		snprintf(why, whylen, "no raw data block (<pre id=\"%s\"> at a line's start) in it",
			 EMBED_ID);
		return -1;
	}
	gt = memchr(tag, '>', (size_t)(html + len - tag));
	end = gt ? find(gt, (size_t)(html + len - gt), "</pre>") : NULL;
	if (!gt || !end) {
		snprintf(why, whylen, "its raw data block is cut");
		return -1;
	}
	if (embed_tag(tag, (size_t)(gt - tag), &r.bytes, &zbytes, want, why, whylen))
		return -1;
	if (r.bytes > lim->max_bytes ||
	    (r.bytes > lim->any_ratio && r.bytes / lim->max_ratio > zbytes)) {
		snprintf(why, whylen,
			 "its raw data block announces %zu bytes from %zu compressed, over the "
			 "limit (%zu times the compressed size beyond %zu bytes, at most %zu "
			 "bytes)",
			 r.bytes, zbytes, lim->max_ratio, lim->any_ratio, lim->max_bytes);
		return -1;
	}
	if (inflateInit(&r.z) != Z_OK)
		BUG("inflateInit failed");
	sha256_init(&r.sha);
	ret = embed_decode(&r, html, gt + 1, end, &nz, why, whylen);
	inflateEnd(&r.z);
	if (ret || r.stopped) {
		uint8_t digest[32];

		sha256_final(&r.sha, digest);
		if (r.stopped)
			*why = '\0'; /* put() said why */
		return -1;
	}
	return embed_verify(&r, nz, zbytes, want, why, whylen);
}

struct collect {
	struct sbuf b;
};

static int collect(void *arg, const void *buf, size_t len)
{
	struct collect *c = arg;

	sbuf_add(&c->b, buf, len);
	return 0;
}

int embed_extract(const char *html, size_t len, char **doc, size_t *doclen, char *why,
		  size_t whylen)
{
	static const struct embed_limits any = { .max_bytes = (size_t)1 << 34, .max_ratio = 1024 };
	struct collect c = { { 0 } };

	*doc = NULL;
	if (embed_read(html, len, &any, collect, &c, why, whylen)) {
		sbuf_release(&c.b);
		return -1;
	}
	sbuf_add(&c.b, "", 1);
	*doclen = c.b.len - 1;
	*doc = c.b.buf;
	return 0;
}
