/*
 * vmchan.h: the result channel between a `vm` guest and the host, and the
 * digests `vm` needs.
 *
 * The guest writes framed records on a serial port that carries nothing
 * else (never the kernel console); qemu stores the bytes in a file; the host
 * decodes that file after the guest powered off. Every record is
 *
 *   magic "WBCH" | type u32 | seq u32 | len u32 | crc32 u32 | payload[len]
 *
 * (little-endian; the CRC-32 covers type, seq, len and the payload). The
 * sequence numbers run 0, 1, 2, ... and the last record is END, whose
 * payload repeats how many records came before it. Decoding rejects
 * anything else: bytes that are not a record, a truncated record, a bad
 * CRC, a duplicated, missing or reordered record, a missing END, or bytes
 * after END. So a guest that crashed mid-transfer or printed garbage can
 * never be taken for a complete result.
 *
 * Payloads: HELLO the guest's kernel release; FILE a u32 name length, the
 * name and one chunk of the file's bytes (a file is the concatenation of
 * its chunks in sequence order); OUTPUT one byte (1 stdout, 2 stderr) and
 * text; STATUS the subcommand's exit status (i32), its duration and the
 * guest's uptime when /init started it (u64 ns each); END the count.
 */
#ifndef WAKEBENCH_VMCHAN_H
#define WAKEBENCH_VMCHAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum vmchan_type {
	VMCHAN_HELLO = 1,
	VMCHAN_FILE = 2,
	VMCHAN_OUTPUT = 3,
	VMCHAN_STATUS = 4,
	VMCHAN_END = 5,
};

#define VMCHAN_MAGIC	   0x48434257u /* "WBCH" read as little-endian u32 */
#define VMCHAN_HDR_BYTES   20u
#define VMCHAN_MAX_PAYLOAD (1u << 20)
#define VMCHAN_FILE_CHUNK  (64u * 1024u)

/* Write one record into out (VMCHAN_HDR_BYTES + len bytes); returns its size. */
size_t vmchan_encode(uint8_t *out, uint32_t type, uint32_t seq, const void *payload, uint32_t len);

/* The guest's side: records written to a file descriptor in sequence. */
struct vmchan_writer {
	int fd;
	uint32_t seq;
};

int vmchan_send(struct vmchan_writer *w, uint32_t type, const void *payload, size_t len);
int vmchan_send_file(struct vmchan_writer *w, const char *name, const void *data, size_t len);
int vmchan_send_output(struct vmchan_writer *w, int stream, const void *text, size_t len);
int vmchan_send_status(struct vmchan_writer *w, int exit_status, uint64_t duration_ns,
		       uint64_t uptime_ns);
/* Sends END. */
int vmchan_finish(struct vmchan_writer *w);

struct vmchan_file {
	char *name;
	uint8_t *data;
	size_t len;
};

/* Everything one guest sent, assembled. */
struct vmchan_result {
	char *release;	 /* HELLO; NULL if none */
	char *out, *err; /* OUTPUT streams, NUL-terminated (may be empty) */
	size_t out_len, err_len;
	int have_status;
	int exit_status;
	uint64_t duration_ns, uptime_ns;
	struct vmchan_file *files;
	size_t nfiles;
	uint32_t nrecords; /* END included */
};

/*
 * The decoder, fed as the bytes come (a LAVA frame's lines): each whole
 * record, checked (magic, length, CRC, sequence), goes to record() (END is
 * checked here); bounded by one record's size. feed() and end() return -1
 * with a one-line reason in why (nothing printed); end() also when the
 * channel stops short of its END. release() frees the record buffer.
 */
struct vmchan_stream {
	int (*record)(void *arg, uint32_t type, const uint8_t *payload, uint32_t len, char *why,
		      size_t whylen);
	void *arg;
	uint8_t *rec; /* the record being read */
	size_t have;
	unsigned long long off; /* of the record being read */
	uint32_t expect;	/* its sequence number */
	bool ended, failed;
	char why[200];
};

int vmchan_stream_feed(struct vmchan_stream *s, const uint8_t *buf, size_t len);
int vmchan_stream_end(struct vmchan_stream *s);
void vmchan_stream_release(struct vmchan_stream *s);

/* A FILE record's parts: its name (not NUL-terminated) and its chunk of the file. */
int vmchan_file_chunk(const uint8_t *p, uint32_t len, const char **name, uint32_t *namelen,
		      const uint8_t **chunk, uint32_t *chunklen, char *why, size_t whylen);

/*
 * Decode and validate a whole channel capture. Returns 0 with *res filled,
 * or -1 with a one-line reason in why (nothing printed).
 */
int vmchan_parse(const uint8_t *buf, size_t len, struct vmchan_result *res, char *why,
		 size_t whylen);
void vmchan_result_release(struct vmchan_result *res);
const struct vmchan_file *vmchan_find_file(const struct vmchan_result *res, const char *name);

/* CRC-32 (IEEE 802.3, zlib's) of a buffer. */
uint32_t vmchan_crc32(const void *buf, size_t len);

#endif
