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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	return find(buf, len, "id=\"" EMBED_ID "\"") != NULL;
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
	*out = (size_t)strtoull(p, &end, 10);
	return end == p || *end != '"' ? -1 : 0;
}

int embed_extract(const char *html, size_t len, char **doc, size_t *doclen, char *why,
		  size_t whylen)
{
	const char *tag = find(html, len, "<pre id=\"" EMBED_ID "\""), *gt, *body, *end, *p;
	size_t bytes, zbytes, nz = 0, tagn;
	int zr;
	unsigned char *z = NULL;
	unsigned acc = 0, nacc = 0;
	char want[80] = "", got[65];
	const char *sha;
	uLongf outlen;
	char *out;

	*doc = NULL;
	if (!tag) {
		snprintf(why, whylen, "no raw data block (<pre id=\"%s\">) in it", EMBED_ID);
		return -1;
	}
	gt = memchr(tag, '>', (size_t)(html + len - tag));
	end = gt ? find(gt, (size_t)(html + len - gt), "</pre>") : NULL;
	if (!gt || !end) {
		snprintf(why, whylen, "its raw data block is cut");
		return -1;
	}
	tagn = (size_t)(gt - tag);
	sha = find(tag, tagn, " data-sha256=\"");
	if (!find(tag, tagn, " data-encoding=\"zlib+base64\"") ||
	    attr_size(tag, tagn, "data-bytes", &bytes) ||
	    attr_size(tag, tagn, "data-compressed", &zbytes) || !sha ||
	    (size_t)(gt - sha) < 14 + 64 + 1 || bytes > (size_t)1 << 34) {
		snprintf(why, whylen, "its raw data block has an unknown encoding or no sizes");
		return -1;
	}
	memcpy(want, sha + 14, 64);
	want[64] = '\0';
	body = gt + 1;
	z = xmalloc((size_t)(end - body) / 4 * 3 + 4);
	for (p = body; p < end; p++) {
		int v;

		if (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')
			continue;
		if (*p == '=')
			break;
		v = base64_value((unsigned char)*p);
		if (v < 0) {
			snprintf(why, whylen,
				 "its raw data block has a character that is not base64 "
				 "(byte %zu)",
				 (size_t)(p - html));
			free(z);
			return -1;
		}
		acc = acc << 6 | (unsigned)v;
		if (++nacc == 4) {
			z[nz++] = (unsigned char)(acc >> 16);
			z[nz++] = (unsigned char)(acc >> 8);
			z[nz++] = (unsigned char)acc;
			acc = nacc = 0;
		}
	}
	if (nacc == 2) {
		z[nz++] = (unsigned char)(acc >> 4);
	} else if (nacc == 3) {
		z[nz++] = (unsigned char)(acc >> 10);
		z[nz++] = (unsigned char)(acc >> 2);
	}
	if (nz != zbytes) {
		snprintf(why, whylen,
			 "its raw data block holds %zu bytes where it announces %zu (cut "
			 "or altered)",
			 nz, zbytes);
		free(z);
		return -1;
	}
	out = xmalloc(bytes + 1);
	outlen = (uLongf)bytes;
	zr = uncompress((unsigned char *)out, &outlen, z, (uLong)nz);
	free(z);
	if (zr != Z_OK || outlen != bytes) {
		snprintf(why, whylen,
			 "its raw data block does not decompress to the %zu bytes it "
			 "announces",
			 bytes);
		free(out);
		return -1;
	}
	out[bytes] = '\0';
	sha256_hex(out, bytes, got);
	if (strcmp(got, want)) {
		snprintf(why, whylen, "its raw data block fails its SHA-256 check");
		free(out);
		return -1;
	}
	*doc = out;
	*doclen = bytes;
	return 0;
}
