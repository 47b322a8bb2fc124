/*
 * digest.c: SHA-256 through OpenSSL's libcrypto (Debian's, the one
 * implementation every layer uses) and base64 (RFC 4648): see digest.h.
 */
#include "util/digest.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/evp.h>

/* ---- SHA-256, through OpenSSL's libcrypto ---- */

void sha256_init(struct sha256 *c)
{
	c->ctx = EVP_MD_CTX_new();
	if (!c->ctx || EVP_DigestInit_ex(c->ctx, EVP_sha256(), NULL) != 1)
		die("cannot set up SHA-256 (libcrypto): out of memory");
}

void sha256_update(struct sha256 *c, const void *data, size_t len)
{
	if (EVP_DigestUpdate(c->ctx, data, len) != 1)
		BUG("EVP_DigestUpdate failed");
}

void sha256_final(struct sha256 *c, uint8_t digest[32])
{
	unsigned int n = 0;

	if (EVP_DigestFinal_ex(c->ctx, digest, &n) != 1 || n != 32)
		BUG("EVP_DigestFinal_ex failed");
	EVP_MD_CTX_free(c->ctx);
	c->ctx = NULL;
}

static void to_hex(const uint8_t digest[32], char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	unsigned i;

	for (i = 0; i < 32; i++) {
		hex[2 * i] = digits[digest[i] >> 4];
		hex[2 * i + 1] = digits[digest[i] & 15];
	}
	hex[64] = '\0';
}

void sha256_hex(const void *data, size_t len, char hex[65])
{
	struct sha256 c;
	uint8_t d[32];

	sha256_init(&c);
	sha256_update(&c, data, len);
	sha256_final(&c, d);
	to_hex(d, hex);
}

int sha256_file_hex(const char *path, char hex[65])
{
	struct sha256 c;
	uint8_t d[32], *buf;
	ssize_t n;
	int e, fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	buf = xmalloc(1 << 16);
	sha256_init(&c);
	while ((n = read_full(fd, buf, 1 << 16)) > 0)
		sha256_update(&c, buf, (size_t)n);
	e = errno;
	free(buf);
	close(fd);
	sha256_final(&c, d); /* also releases the context after a failed read */
	if (n < 0) {
		errno = e;
		return -1;
	}
	to_hex(d, hex);
	return 0;
}

/* ---- base64 ---- */

static const char base64_chars[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t base64_encode(const uint8_t *in, size_t n, char *out)
{
	size_t i, k = 0;

	for (i = 0; i < n; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16;

		if (i + 1 < n)
			v |= (uint32_t)in[i + 1] << 8;
		if (i + 2 < n)
			v |= in[i + 2];
		out[k++] = base64_chars[(v >> 18) & 63];
		out[k++] = base64_chars[(v >> 12) & 63];
		out[k++] = i + 1 < n ? base64_chars[(v >> 6) & 63] : '=';
		out[k++] = i + 2 < n ? base64_chars[v & 63] : '=';
	}
	out[k] = '\0';
	return k;
}

int base64_value(int c)
{
	const char *p = c > 0 && c < 256 ? strchr(base64_chars, c) : NULL;

	return p ? (int)(p - base64_chars) : -1;
}

int base64_decode(const char *s, size_t len, uint8_t *out, size_t *outlen)
{
	size_t i;

	if (len % 4)
		return -1;
	for (i = 0; i < len; i += 4) {
		int a = base64_value((unsigned char)s[i]),
		    b = base64_value((unsigned char)s[i + 1]);
		int c = s[i + 2] == '=' ? -2 : base64_value((unsigned char)s[i + 2]);
		int d = s[i + 3] == '=' ? -2 : base64_value((unsigned char)s[i + 3]);
		uint32_t v;

		if (a < 0 || b < 0 || c == -1 || d == -1 || (c == -2 && d != -2) ||
		    ((c == -2 || d == -2) && i + 4 != len))
			return -1;
		v = (uint32_t)a << 18 | (uint32_t)b << 12 | (uint32_t)(c < 0 ? 0 : c) << 6 |
		    (uint32_t)(d < 0 ? 0 : d);
		out[(*outlen)++] = (uint8_t)(v >> 16);
		if (c >= 0)
			out[(*outlen)++] = (uint8_t)(v >> 8);
		if (d >= 0)
			out[(*outlen)++] = (uint8_t)v;
	}
	return 0;
}
