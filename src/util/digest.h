/*
 * digest.h: SHA-256 (libcrypto's) and base64, each in one place for every
 * layer: the initramfs cache name and the kernel image's identity (vm), the
 * embedded data block of a report (its checksum and its encoding), KCIDB's
 * identifiers, and the LAVA console frame's lines.
 */
#ifndef WAKEBENCH_DIGEST_H
#define WAKEBENCH_DIGEST_H

#include <stddef.h>
#include <stdint.h>

/* SHA-256 in pieces; sha256_final() releases what sha256_init() set up. */
struct sha256 {
	struct evp_md_ctx_st *ctx; /* EVP_MD_CTX */
};

void sha256_init(struct sha256 *c);
void sha256_update(struct sha256 *c, const void *data, size_t len);
void sha256_final(struct sha256 *c, uint8_t digest[32]);
/* Lower-case hex of the digest of a buffer, 65 bytes with the NUL. */
void sha256_hex(const void *data, size_t len, char hex[65]);
/* The same for a file; -1 with errno set if it cannot be read. */
int sha256_file_hex(const char *path, char hex[65]);

/*
 * Base64 (RFC 4648, the standard alphabet, '=' padding). base64_encode()
 * writes 4 characters for every 3 bytes of in[0..n) or part of them, then a
 * NUL, and returns how many characters it wrote (out holds 4 * ceil(n / 3) + 1).
 */
size_t base64_encode(const uint8_t *in, size_t n, char *out);
/* The value of a base64 character, 0..63; -1 for any other (NUL and '=' too). */
int base64_value(int c);
/*
 * Strict decoding: groups of four, '=' only at the very end. Appends the bytes
 * to out at *outlen (which holds 3 * len / 4 more); -1 if malformed.
 */
int base64_decode(const char *s, size_t len, uint8_t *out, size_t *outlen);

#endif
