/*
 * import.c: the door other people's data comes through (import.h).
 *
 * A file is opened without following it into a FIFO or a device (O_NONBLOCK,
 * then fstat: anything but a regular file is refused with what it is), and
 * its type is decided from where each format puts its signature, never
 * from a substring anywhere: SQLite's 16-byte header at offset 0; an export
 * document's '{' as the first byte after an optional UTF-8 byte-order mark
 * and white space, unless it starts '{"dt":' (a LAVA job log as JSON
 * lines); a report's "<!DOCTYPE html>" line first, with the generator line
 * wakebench writes in its head (render/embed.c finds the data block);
 * schbench's --json object ('{' then "normal") and other tools' output as
 * people post it, recognised by its structure in the first 4 KiB (a table
 * header, a benchmark's banner: engine/posted.c), read into experiments of
 * kind "external"; any other text without a NUL in its first 4 KiB is a
 * job log (lava-run's YAML, or console text) in which only whole results
 * frames count.
 *
 * An export document is parsed as it streams in, by yajl's event parser
 * (no tree of the whole document): each experiment's members but its
 * samples, and each sample, are regenerated as small JSON objects and handed
 * to the store (store_json_*()), so memory is bounded by one sample and time
 * is linear in samples. The parser also refuses what SQLite's JSON functions
 * would read ambiguously: duplicate keys, NUL characters, integers beyond
 * 64 bits, non-finite numbers, nesting past IMPORT_MAX_DEPTH.
 */
#include "engine/import.h"
#include "engine/farm.h"
#include "render/render.h"
#include "util/util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_parse.h>

/* ---- keys of the objects open, to refuse duplicates ---- */

/* 64-bit FNV-1a hashes of the keys of one object, open addressing (0 = empty) */
struct keyset {
	uint64_t *h;
	size_t cap, n;
};

static uint64_t key_hash(const unsigned char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ s[i]) * 0x100000001b3ull;
	return h ? h : 1;
}

/* Add a key: false when the object has it already. */
static bool keyset_add(struct keyset *ks, uint64_t h)
{
	size_t i;

	if (2 * (ks->n + 1) > ks->cap) {
		struct keyset big = { .cap = ks->cap ? 2 * ks->cap : 32 };

		big.h = xcalloc(big.cap, sizeof(*big.h));
		for (i = 0; i < ks->cap; i++)
			if (ks->h[i])
				keyset_add(&big, ks->h[i]);
		free(ks->h);
		*ks = big;
	}
	for (i = h & (ks->cap - 1); ks->h[i]; i = (i + 1) & (ks->cap - 1))
		if (ks->h[i] == h)
			return false;
	ks->h[i] = h;
	ks->n++;
	return true;
}

static void keyset_clear(struct keyset *ks)
{
	if (ks->n)
		memset(ks->h, 0, ks->cap * sizeof(*ks->h));
	ks->n = 0;
}

/* ---- the streamed export document ---- */

enum top_member { TOP_OTHER, TOP_FORMAT, TOP_VERSION, TOP_EXPERIMENTS };
enum exp_member { EXP_OTHER, EXP_UUID, EXP_SAMPLES };

struct json_import {
	struct store *dst;
	char *name;
	const struct store_import_opts *opts;
	yajl_handle parser;
	yajl_gen exp, smp;   /* the experiment's members but its samples; one sample */
	unsigned depth;	     /* containers open */
	enum top_member top; /* the member of the document being read */
	bool format_ok, version_ok, seen_experiments;
	bool in_exp, in_samples, in_sample;
	enum exp_member member; /* the member of the experiment being read */
	int64_t k;		/* experiments begun (the current one is k - 1) */
	uint64_t nsamples;	/* of the current experiment */
	char uuid[37];
	const char *uuid_type; /* NULL: a valid uuid; else what was there instead */
	struct keyset keys[IMPORT_MAX_DEPTH + 1];
	uint64_t bytes;
	size_t since_event; /* bytes fed since the last event: one token's, bounded */
	bool failed;	    /* said why already */
};

static int refuse(struct json_import *ji, const char *fmt, ...) PRINTF_LIKE(2, 3);
static int refuse(struct json_import *ji, const char *fmt, ...)
{
	va_list ap;
	char *what;

	if (ji->failed)
		return 0;
	va_start(ap, fmt);
	what = xvasprintf(fmt, ap);
	va_end(ap);
	if (ji->in_exp)
		error("import: '%s' is refused: experiment #%lld%s%s: %s", ji->name,
		      (long long)(ji->k - 1), ji->uuid_type ? "" : " ",
		      ji->uuid_type ? "" : ji->uuid, what);
	else
		error("import: '%s' is refused: %s", ji->name, what);
	free(what);
	ji->failed = true;
	return 0; /* cancels the parse */
}

static int not_export(struct json_import *ji)
{
	if (!ji->failed)
		error("'%s' is neither a wakebench store nor a wakebench export (JSON, format "
		      "\"wakebench-export\", version 2, with \"experiments\")",
		      ji->name);
	ji->failed = true;
	return 0;
}

/* The generator the current event belongs to: a sample's, the experiment's, or none. */
static yajl_gen sink(struct json_import *ji)
{
	if (ji->in_sample)
		return ji->smp;
	if (ji->in_exp && !(ji->in_samples && ji->depth == 4))
		return ji->exp;
	return NULL;
}

/* A generator's status after an event, and its text within IMPORT_MAX_OBJECT_BYTES. */
static int gen_ok(struct json_import *ji, yajl_gen g, yajl_gen_status st)
{
	const unsigned char *buf;
	size_t len;

	if (st != yajl_gen_status_ok)
		return refuse(ji, "cannot regenerate it (%d)", (int)st);
	yajl_gen_get_buf(g, &buf, &len);
	if (len > IMPORT_MAX_OBJECT_BYTES)
		return refuse(ji, "%s of over %u bytes",
			      g == ji->smp ? "a sample" : "an experiment", IMPORT_MAX_OBJECT_BYTES);
	return 1;
}

/* A scalar or a container where the document's structure wants something else. */
static int misplaced(struct json_import *ji, const char *type)
{
	if (ji->depth == 2 && ji->top == TOP_EXPERIMENTS)
		return refuse(ji, "experiment #%lld is %s, expected an object", (long long)ji->k,
			      type);
	if (ji->in_samples && ji->depth == 4)
		return refuse(ji, "sample %llu is %s, expected an object",
			      (unsigned long long)ji->nsamples, type);
	if (ji->in_exp && ji->depth == 3 && ji->member == EXP_SAMPLES)
		return refuse(ji, "'samples' is %s, expected an array", type);
	if (ji->depth == 1 && ji->top == TOP_EXPERIMENTS)
		return refuse(ji, "'experiments' is %s, expected an array", type);
	return -1; /* in place */
}

/* The experiment's uuid member is there, but not as text. */
static void uuid_not_text(struct json_import *ji, const char *type)
{
	if (ji->in_exp && !ji->in_samples && ji->depth == 3 && ji->member == EXP_UUID)
		ji->uuid_type = type;
}

/* A scalar at the document's own level (format, version, anything else ignored). */
static int top_scalar(struct json_import *ji, const char *type, const char *text, size_t len)
{
	int r = misplaced(ji, type);

	if (r >= 0)
		return r;
	if (ji->depth != 1)
		return 1; /* inside a member this version does not read */
	if (ji->top == TOP_FORMAT)
		ji->format_ok =
			!strcmp(type, "text") && len == 16 && !memcmp(text, "wakebench-export", 16);
	else if (ji->top == TOP_VERSION)
		ji->version_ok = !strcmp(type, "integer") && len == 1 && *text == '2';
	return 1;
}

/* Every parser event: the bytes since the last one were one token's. */
static struct json_import *event(void *ctx)
{
	struct json_import *ji = ctx;

	ji->since_event = 0;
	return ji;
}

static int on_null(void *ctx)
{
	struct json_import *ji = event(ctx);
	yajl_gen g = sink(ji);

	uuid_not_text(ji, "null");
	if (g)
		return gen_ok(ji, g, yajl_gen_null(g));
	if (ji->in_exp && ji->member == EXP_SAMPLES && ji->depth == 3)
		return 1; /* "samples": null, none */
	return top_scalar(ji, "null", NULL, 0);
}

static int on_boolean(void *ctx, int b)
{
	struct json_import *ji = event(ctx);
	yajl_gen g = sink(ji);

	uuid_not_text(ji, b ? "true" : "false");
	if (g)
		return gen_ok(ji, g, yajl_gen_bool(g, b));
	return top_scalar(ji, b ? "true" : "false", NULL, 0);
}

static int on_number(void *ctx, const char *s, size_t len)
{
	struct json_import *ji = event(ctx);
	bool integer = !memchr(s, '.', len) && !memchr(s, 'e', len) && !memchr(s, 'E', len);
	char buf[64], *end;
	yajl_gen g;

	if (len >= sizeof(buf))
		return refuse(ji, "the number '%.20s...' has %zu digits", s, len);
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	if (integer)
		(void)strtoll(buf, &end, 10);
	else if (!isfinite(strtod(buf, &end)))
		errno = ERANGE;
	if (errno == ERANGE)
		return refuse(ji, "the number %s is out of range (%s)", buf,
			      integer ? "integers are 64-bit, at most 9223372036854775807"
				      : "not a finite double");
	uuid_not_text(ji, integer ? "integer" : "real");
	g = sink(ji);
	if (g)
		return gen_ok(ji, g, yajl_gen_number(g, s, len));
	return top_scalar(ji, integer ? "integer" : "real", s, len);
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
	struct json_import *ji = event(ctx);
	yajl_gen g;

	if (memchr(s, '\0', len))
		return refuse(ji, "a string holds a NUL character (\\u0000)");
	if (len > IMPORT_MAX_STRING_BYTES)
		return refuse(ji, "a string of %zu bytes (at most %u)", len,
			      IMPORT_MAX_STRING_BYTES);
	if (ji->in_exp && !ji->in_samples && ji->depth == 3 && ji->member == EXP_UUID) {
		ji->uuid_type = "text";
		if (len == 36) {
			memcpy(ji->uuid, s, 36);
			ji->uuid[36] = '\0';
			if (store_uuid_valid(ji->uuid))
				ji->uuid_type = NULL;
		}
	}
	g = sink(ji);
	if (g)
		return gen_ok(ji, g, yajl_gen_string(g, s, len));
	return top_scalar(ji, "text", (const char *)s, len);
}

static int on_key(void *ctx, const unsigned char *s, size_t len)
{
	struct json_import *ji = event(ctx);
	struct keyset *ks = &ji->keys[ji->depth];
	yajl_gen g;

	if (memchr(s, '\0', len))
		return refuse(ji, "a key holds a NUL character (\\u0000)");
	if (len > IMPORT_MAX_STRING_BYTES || ks->n >= IMPORT_MAX_MEMBERS)
		return refuse(ji, "an object with a key of %zu bytes or over %u members", len,
			      IMPORT_MAX_MEMBERS);
	if (!keyset_add(ks, key_hash(s, len)))
		return refuse(ji, "the key \"%.*s\" comes twice in one object",
			      (int)(len > 64 ? 64 : len), (const char *)s);
	if (ji->depth == 1) {
		ji->top = len == 6 && !memcmp(s, "format", 6)	       ? TOP_FORMAT
			  : len == 7 && !memcmp(s, "version", 7)       ? TOP_VERSION
			  : len == 11 && !memcmp(s, "experiments", 11) ? TOP_EXPERIMENTS
								       : TOP_OTHER;
		return 1;
	}
	if (ji->in_exp && !ji->in_sample && ji->depth == 3) {
		ji->member = len == 7 && !memcmp(s, "samples", 7) ? EXP_SAMPLES
			     : len == 4 && !memcmp(s, "uuid", 4)  ? EXP_UUID
								  : EXP_OTHER;
		if (ji->member == EXP_SAMPLES)
			return 1; /* streamed apart */
	}
	g = sink(ji);
	return !g || gen_ok(ji, g, yajl_gen_string(g, s, len));
}

/* One more container open: depth and its key set. */
static int open_level(struct json_import *ji)
{
	if (ji->depth >= IMPORT_MAX_DEPTH)
		return refuse(ji, "containers nested more than %d deep", IMPORT_MAX_DEPTH);
	ji->depth++;
	keyset_clear(&ji->keys[ji->depth]);
	return 1;
}

static int on_start_map(void *ctx)
{
	struct json_import *ji = event(ctx);
	int r;

	if (ji->in_samples && ji->depth == 4 && !ji->in_sample) {
		if (++ji->nsamples > IMPORT_MAX_SAMPLES)
			return refuse(ji, "more than %u samples", IMPORT_MAX_SAMPLES);
		ji->in_sample = true;
		yajl_gen_reset(ji->smp, NULL);
		yajl_gen_clear(ji->smp);
	} else if (ji->depth == 2 && ji->top == TOP_EXPERIMENTS) {
		if (ji->k >= IMPORT_MAX_EXPERIMENTS)
			return refuse(ji, "more than %u experiments", IMPORT_MAX_EXPERIMENTS);
		ji->k++;
		ji->in_exp = true;
		ji->nsamples = 0;
		ji->member = EXP_OTHER;
		ji->uuid_type = "missing";
		yajl_gen_reset(ji->exp, NULL);
		yajl_gen_clear(ji->exp);
	} else if ((r = misplaced(ji, "an object")) >= 0) {
		return r;
	} else {
		uuid_not_text(ji, "an object");
	}
	if (!open_level(ji))
		return 0;
	return !sink(ji) || yajl_gen_map_open(sink(ji)) == yajl_gen_status_ok;
}

/* The text a generator holds. */
static const char *gen_text(yajl_gen g, size_t *len)
{
	const unsigned char *buf;

	yajl_gen_get_buf(g, &buf, len);
	return (const char *)buf;
}

static int on_end_map(void *ctx)
{
	struct json_import *ji = event(ctx);
	yajl_gen g = sink(ji);
	const char *text;
	size_t len;

	if (g && yajl_gen_map_close(g) != yajl_gen_status_ok)
		return 0;
	ji->depth--;
	if (ji->in_sample && ji->depth == 4) {
		ji->in_sample = false;
		text = gen_text(ji->smp, &len);
		if (store_json_sample(ji->dst, ji->k - 1, text, len))
			ji->failed = true;
		return !ji->failed;
	}
	if (ji->in_exp && ji->depth == 2) {
		if (ji->uuid_type)
			return refuse(ji,
				      "its uuid is %s, expected a UUID (8-4-4-4-12 lower-case "
				      "hex digits, not all zero)",
				      ji->uuid_type);
		text = gen_text(ji->exp, &len);
		if (store_json_experiment(ji->dst, ji->k - 1, ji->uuid, text, len))
			ji->failed = true;
		ji->in_exp = false;
		return !ji->failed;
	}
	return 1;
}

static int on_start_array(void *ctx)
{
	struct json_import *ji = event(ctx);
	yajl_gen g = sink(ji);
	int r;

	if (ji->in_exp && !ji->in_sample && ji->depth == 3 && ji->member == EXP_SAMPLES) {
		ji->in_samples = true;
		return open_level(ji);
	}
	if (ji->depth == 1 && ji->top == TOP_EXPERIMENTS) {
		ji->seen_experiments = true;
		return open_level(ji);
	}
	if (!g && (r = misplaced(ji, "an array")) >= 0)
		return r;
	uuid_not_text(ji, "an array");
	if (!open_level(ji))
		return 0;
	return !g || yajl_gen_array_open(g) == yajl_gen_status_ok;
}

static int on_end_array(void *ctx)
{
	struct json_import *ji = event(ctx);
	yajl_gen g;

	ji->depth--;
	if (ji->in_samples && ji->depth == 3) {
		ji->in_samples = false;
		return 1;
	}
	g = sink(ji);
	return !g || yajl_gen_array_close(g) == yajl_gen_status_ok;
}

static const yajl_callbacks callbacks = {
	.yajl_null = on_null,
	.yajl_boolean = on_boolean,
	.yajl_number = on_number,
	.yajl_string = on_string,
	.yajl_start_map = on_start_map,
	.yajl_map_key = on_key,
	.yajl_end_map = on_end_map,
	.yajl_start_array = on_start_array,
	.yajl_end_array = on_end_array,
};

struct json_import *json_import_begin(struct store *dst, const char *name,
				      const struct store_import_opts *opts)
{
	struct json_import *ji = xcalloc(1, sizeof(*ji));

	ji->dst = dst;
	ji->name = xstrdup(name);
	ji->opts = opts;
	ji->parser = yajl_alloc(&callbacks, NULL, ji);
	ji->exp = yajl_gen_alloc(NULL);
	ji->smp = yajl_gen_alloc(NULL);
	if (!ji->parser || !ji->exp || !ji->smp)
		die("out of memory");
	if (store_json_begin(dst, name)) {
		ji->failed = true;
		return ji;
	}
	return ji;
}

void json_import_set_opts(struct json_import *ji, const struct store_import_opts *opts)
{
	ji->opts = opts;
}

/* Say why the parser stopped, unless a callback did. */
static int parse_error(struct json_import *ji, const unsigned char *buf, size_t len)
{
	unsigned char *msg;
	size_t at;

	if (ji->failed)
		return -1;
	msg = yajl_get_error(ji->parser, 0, buf, len);
	at = yajl_get_bytes_consumed(ji->parser);
	error("import: '%s' is refused: not valid JSON at byte %llu: %s", ji->name,
	      (unsigned long long)(ji->bytes + at), msg ? (const char *)msg : "?");
	yajl_free_error(ji->parser, msg);
	ji->failed = true;
	return -1;
}

int json_import_feed(struct json_import *ji, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	if (ji->failed)
		return -1;
	/* a UTF-8 byte-order mark before the document is allowed (RFC 8259, 8.1) */
	if (!ji->bytes && len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3)) {
		p += 3;
		len -= 3;
		ji->bytes = 3;
	}
	while (len) {
		size_t n = len < 65536 ? len : 65536;

		if (yajl_parse(ji->parser, p, n) != yajl_status_ok)
			return parse_error(ji, p, n);
		ji->bytes += n;
		ji->since_event += n;
		/* yajl holds a token until it ends: a longer one would grow without bound */
		if (ji->since_event > IMPORT_MAX_STRING_BYTES + 65536) {
			error("import: '%s' is refused: over %u bytes without a JSON token ending "
			      "(at byte %llu)",
			      ji->name, IMPORT_MAX_STRING_BYTES, (unsigned long long)ji->bytes);
			ji->failed = true;
			return -1;
		}
		p += n;
		len -= n;
	}
	return ji->failed ? -1 : 0;
}

static void json_import_free(struct json_import *ji)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ji->keys); i++)
		free(ji->keys[i].h);
	yajl_free(ji->parser);
	yajl_gen_free(ji->exp);
	yajl_gen_free(ji->smp);
	free(ji->name);
	free(ji);
}

void json_import_abort(struct json_import *ji)
{
	if (!ji)
		return;
	store_json_abort(ji->dst);
	json_import_free(ji);
}

int json_import_end(struct json_import *ji, struct import_result *r)
{
	int ret = -1;

	memset(r, 0, sizeof(*r));
	if (ji->failed ||
	    (yajl_complete_parse(ji->parser) != yajl_status_ok && parse_error(ji, NULL, 0) < 0)) {
		json_import_abort(ji);
		return -1;
	}
	/* "format" and "version" may come anywhere (jq -S sorts them after "experiments") */
	if (!ji->seen_experiments || !ji->format_ok || !ji->version_ok) {
		not_export(ji);
		json_import_abort(ji);
		return -1;
	}
	ret = store_json_end(ji->dst, ji->opts, &r->ids, &r->added, &r->skipped);
	json_import_free(ji);
	return ret;
}

/* ---- a file: its kind, its type, its format's reader ---- */

static const char *file_kind(mode_t m)
{
	return S_ISFIFO(m)   ? "a FIFO"
	       : S_ISCHR(m)  ? "a character device"
	       : S_ISBLK(m)  ? "a block device"
	       : S_ISSOCK(m) ? "a socket"
	       : S_ISDIR(m)  ? "a directory"
			     : "not a regular file";
}

/*
 * Open path for reading without blocking on a FIFO or a device, and refuse
 * anything but a regular file: an fd, or -1 after one line.
 */
static int open_input(const char *path, struct stat *sb)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

	if (fd < 0)
		return error_errno("import: cannot open '%s'", path);
	if (fstat(fd, sb) || !S_ISREG(sb->st_mode)) {
		error("import: '%s' is refused: it is %s; import reads regular files", path,
		      file_kind(sb->st_mode));
		close(fd);
		return -1;
	}
	/* a regular file does not block; later reads may be large */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

/* The type from where each format puts its signature (see the top of this file). */
static int detect(const unsigned char *b, size_t n, enum import_type *type)
{
	size_t i = 0;

	if (n >= 16 && !memcmp(b, "SQLite format 3", 16)) {
		*type = IMPORT_STORE;
		return 0;
	}
	if (embed_detect((const char *)b, n)) {
		*type = IMPORT_REPORT;
		return 0;
	}
	if (n >= 3 && !memcmp(b, "\xef\xbb\xbf", 3))
		i = 3;
	while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'))
		i++;
	/* posted output of other tools (schbench's JSON object among them) */
	if (posted_detect((const char *)b, n)) {
		*type = IMPORT_POSTED;
		return 0;
	}
	/* lava-run's log as JSON lines starts {"dt": ...; an export never does */
	if (i < n && b[i] == '{' && (n - i < 6 || memcmp(b + i, "{\"dt\":", 6))) {
		*type = IMPORT_EXPORT;
		return 0;
	}
	/* lava-run's YAML log, or console text: no NUL in its start */
	if (n && !memchr(b, '\0', n)) {
		*type = IMPORT_LAVA_LOG;
		return 0;
	}
	return -1;
}

static int import_export(struct store *dst, const char *path, int fd, struct import_result *r)
{
	struct json_import *ji = json_import_begin(dst, path, NULL);
	char buf[65536];
	ssize_t n;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		if (json_import_feed(ji, buf, (size_t)n)) {
			json_import_abort(ji);
			return -1;
		}
	if (n < 0) {
		error_errno("import: cannot read '%s'", path);
		json_import_abort(ji);
		return -1;
	}
	return json_import_end(ji, r);
}

static int feed_report(void *arg, const void *buf, size_t len)
{
	return json_import_feed(arg, buf, len);
}

static int discard(void *arg, const void *buf, size_t len)
{
	(void)arg;
	(void)buf;
	(void)len;
	return 0;
}

static int import_report(struct store *dst, const char *path, int fd, const struct stat *sb,
			 struct import_result *r)
{
	static const struct embed_limits lim = { .max_bytes = IMPORT_MAX_DOC_BYTES,
						 .max_ratio = IMPORT_MAX_INFLATE_RATIO,
						 .any_ratio = IMPORT_ANY_RATIO_BYTES };
	struct json_import *ji;
	char why[300];
	char *html;
	size_t len;
	int ret;

	if ((uint64_t)sb->st_size > IMPORT_MAX_REPORT_BYTES)
		return error("import: '%s' is refused: a report of %llu bytes (at most %llu)", path,
			     (unsigned long long)sb->st_size,
			     (unsigned long long)IMPORT_MAX_REPORT_BYTES);
	len = (size_t)sb->st_size;
	html = xmalloc(len + 1);
	if (read_full(fd, html, len) != (ssize_t)len) {
		free(html);
		return error_errno("import: cannot read '%s'", path);
	}
	/* the block whole and intact first (its checksum), so damage is called damage */
	if (embed_read(html, len, &lim, discard, NULL, why, sizeof(why))) {
		free(html);
		return error("import: report '%s': %s; nothing imported from it", path, why);
	}
	ji = json_import_begin(dst, path, NULL);
	ret = embed_read(html, len, &lim, feed_report, ji, why, sizeof(why));
	free(html);
	if (ret) {
		if (*why)
			error("import: report '%s': %s; nothing imported from it", path, why);
		json_import_abort(ji);
		return -1;
	}
	return json_import_end(ji, r);
}

/* Other tools' posted output, read whole, as the export document posted.c makes of it. */
static int import_posted(struct store *dst, const char *path, int fd, const struct stat *sb,
			 const struct posted_opts *po, struct import_result *r)
{
	struct posted_opts o = { 0 };
	struct json_import *ji;
	char *text, *doc;
	size_t len;

	if ((uint64_t)sb->st_size > IMPORT_MAX_POSTED_BYTES)
		return error("import: '%s' is refused: %llu bytes of posted text (at most %u)",
			     path, (unsigned long long)sb->st_size, IMPORT_MAX_POSTED_BYTES);
	len = (size_t)sb->st_size;
	text = xmalloc(len + 1);
	if (read_full(fd, text, len) != (ssize_t)len) {
		free(text);
		return error_errno("import: cannot read '%s'", path);
	}
	if (po)
		o = *po;
	o.mtime_ns = (long long)sb->st_mtim.tv_sec * 1000000000LL + sb->st_mtim.tv_nsec;
	if (posted_parse(path, text, len, &o, &doc)) {
		free(text);
		return -1;
	}
	free(text);
	ji = json_import_begin(dst, path, NULL);
	if (json_import_feed(ji, doc, strlen(doc))) {
		free(doc);
		json_import_abort(ji);
		return -1;
	}
	free(doc);
	return json_import_end(ji, r);
}

int import_file(struct store *dst, const char *path, struct import_result *r)
{
	return import_file_with(dst, path, NULL, r);
}

int import_file_with(struct store *dst, const char *path, const struct posted_opts *po,
		     struct import_result *r)
{
	unsigned char head[4096];
	enum import_type type;
	struct stat sb;
	ssize_t n;
	FILE *in;
	int fd, ret;

	memset(r, 0, sizeof(*r));
	if ((fd = open_input(path, &sb)) < 0)
		return -1;
	if (store_is_file(dst, fd)) {
		close(fd);
		return error("import: '%s' is the store it would be merged into (--db): nothing "
			     "to merge",
			     path);
	}
	n = pread(fd, head, sizeof(head), 0);
	if (n < 0 || detect(head, (size_t)n, &type)) {
		if (n < 0)
			error_errno("import: cannot read '%s'", path);
		else
			error("'%s' is neither a wakebench store, an export (JSON), a report "
			      "(HTML) "
			      "nor a job log (text)%s",
			      path, n ? "" : ": it is empty");
		close(fd);
		return -1;
	}
	if (type != IMPORT_STORE && (uint64_t)sb.st_size > IMPORT_MAX_FILE_BYTES) {
		close(fd);
		return error("import: '%s' is refused: %llu bytes (at most %llu for a text file)",
			     path, (unsigned long long)sb.st_size,
			     (unsigned long long)IMPORT_MAX_FILE_BYTES);
	}
	switch (type) {
	case IMPORT_STORE:
		close(fd);
		return store_import(dst, path, &r->ids, &r->added, &r->skipped);
	case IMPORT_EXPORT:
		ret = import_export(dst, path, fd, r);
		break;
	case IMPORT_REPORT:
		ret = import_report(dst, path, fd, &sb, r);
		break;
	case IMPORT_POSTED:
		ret = import_posted(dst, path, fd, &sb, po, r);
		break;
	default:
		in = fdopen(fd, "r");
		if (!in)
			die("out of memory");
		ret = lava_import_log(dst, path, in, r);
		fclose(in);
		return ret;
	}
	close(fd);
	return ret;
}

static int import_scratch(const char *path, const struct posted_opts *po)
{
	struct import_result r;
	struct store *scratch;
	int ret;

	if (store_open_scratch(&scratch))
		return -1;
	ret = import_file_with(scratch, path, po, &r);
	free(r.ids);
	store_close(scratch);
	return ret < 0 ? -1 : 0;
}

int import_check(const char *path)
{
	return import_check_with(path, NULL);
}

int import_check_with(const char *path, const struct posted_opts *po)
{
	int ret;

	/* quietly: the import that follows says what it says once; a refusal is said again */
	wb_errors_muted++;
	ret = import_scratch(path, po);
	wb_errors_muted--;
	return ret && import_scratch(path, po) ? -1 : 0;
}
