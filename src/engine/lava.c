/*
 * lava.c: wakebench results carried home in a LAVA job log.
 *
 * In the device, `export --format lava` writes the JSON export (what
 * `import` merges) as vm's result channel (runner/vmchan.h: numbered
 * records, each with its CRC-32, ending in END with the record count):
 * a HELLO with the kernel release, a FILE "lava.json" with the job's
 * identity (LAVA_JOB_ID, which LAVA exports in the test shell, and
 * WAKEBENCH_LAVA_DEVICE and WAKEBENCH_LAVA_LAB, which the test definition
 * sets from its parameters), and a FILE "export.json". A console carries
 * text only, so the channel's bytes travel as numbered base64 lines between
 * a BEGIN and an END line:
 *
 *   WBR1 BEGIN <lines> <bytes>
 *   WBR1 0 <base64 of 48 bytes>
 *   ...
 *   WBR1 END <lines>
 *
 * The lines are short so that no console or log splits them. On the host,
 * `import JOB.log` reads either form of a job log (LAVA's YAML, one flow
 * mapping per line with the console line in "msg", as lava-run prints it
 * or as a list, "- {...}", as a server keeps it; or plain console text):
 * it looks for "WBR1 " in every line, whatever precedes it, and stops the
 * base64 at the first character that is not base64 (the quote that closes
 * the YAML string). A frame is whole when every line came once and in
 * order, the byte count matches, the base64 is clean and vmchan_parse()
 * accepts the channel; only whole frames are merged (each in its own
 * transaction, by UUID, with lava.job_id, lava.device and lava.lab added to
 * the start fingerprint), and each broken one is named with the reason.
 */
#include "engine/farm.h"
#include "engine/import.h"
#include "render/render.h"
#include "runner/vmchan.h"
#include "util/digest.h"

#include <errno.h>
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#define FRAME_TAG	 "WBR1 "
#define FRAME_LINE_BYTES 48u
#define FRAME_MAX_LINES	 (1u << 22)

static bool b64_char(char c)
{
	return c == '=' || base64_value((unsigned char)c) >= 0;
}

/* ---- the device's side: export --format lava ---- */

int lava_capture_begin(struct lava_capture *c)
{
	fflush(stdout);
	c->tmp = tmpfile();
	if (!c->tmp)
		return error_errno("export: cannot create a temporary file");
	c->saved_fd = dup(STDOUT_FILENO);
	if (c->saved_fd < 0 || dup2(fileno(c->tmp), STDOUT_FILENO) < 0) {
		error_errno("export: cannot redirect the export");
		if (c->saved_fd >= 0)
			close(c->saved_fd);
		fclose(c->tmp);
		c->tmp = NULL; /* lava_capture_end() has nothing to undo */
		return -1;
	}
	return 0;
}

static json_object *lava_identity(void)
{
	static const char *const vars[][2] = {
		{ "LAVA_JOB_ID", "lava.job_id" },
		{ "WAKEBENCH_LAVA_DEVICE", "lava.device" },
		{ "WAKEBENCH_LAVA_LAB", "lava.lab" },
	};
	json_object *o = json_object_new_object();
	size_t i;

	for (i = 0; i < ARRAY_SIZE(vars); i++) {
		const char *v = getenv(vars[i][0]);

		if (v && v[0])
			json_object_object_add(o, vars[i][1], json_object_new_string(v));
	}
	return o;
}

/* The channel (vm's records) of one export, in a temporary file. */
static int frame_channel(const char *doc, size_t len, FILE *chan)
{
	struct vmchan_writer w = { .fd = fileno(chan) };
	json_object *id = lava_identity();
	const char *idtext = json_object_to_json_string_ext(id, JSON_C_TO_STRING_PLAIN);
	struct utsname u;
	int ret;

	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	ret = vmchan_send(&w, VMCHAN_HELLO, u.release, strlen(u.release)) ||
	      vmchan_send_file(&w, "lava.json", idtext, strlen(idtext)) ||
	      vmchan_send_file(&w, "export.json", doc, len) || vmchan_finish(&w);
	json_object_put(id);
	return ret ? -1 : 0;
}

static int frame_print(FILE *chan)
{
	uint8_t buf[FRAME_LINE_BYTES];
	char line[FRAME_LINE_BYTES / 3 * 4 + 1];
	long bytes;
	size_t n, nlines, i = 0;

	if (fseek(chan, 0, SEEK_END) || (bytes = ftell(chan)) < 0 || fseek(chan, 0, SEEK_SET))
		return error_errno("export: cannot read the framed results back");
	nlines = ((size_t)bytes + FRAME_LINE_BYTES - 1) / FRAME_LINE_BYTES;
	printf("\n" FRAME_TAG "BEGIN %zu %ld\n", nlines, bytes);
	while ((n = fread(buf, 1, sizeof(buf), chan)) > 0) {
		base64_encode(buf, n, line);
		printf(FRAME_TAG "%zu %s\n", i++, line);
	}
	if (ferror(chan) || i != nlines)
		return error("export: cannot read the framed results back");
	printf(FRAME_TAG "END %zu\n", nlines);
	return 0;
}

int lava_capture_end(struct lava_capture *c, int status)
{
	FILE *chan = NULL;
	char *doc = NULL;
	long len;
	int bad;

	if (!c->tmp)
		return -1;
	bad = fflush(stdout) || ferror(stdout);
	clearerr(stdout);
	if (dup2(c->saved_fd, STDOUT_FILENO) < 0)
		die_errno("export: cannot restore stdout");
	close(c->saved_fd);
	if (status || bad)
		goto fail;
	if (fseek(c->tmp, 0, SEEK_END) || (len = ftell(c->tmp)) < 0 || fseek(c->tmp, 0, SEEK_SET)) {
		error_errno("export: cannot read the export back");
		goto fail;
	}
	doc = xmalloc((size_t)len + 1);
	if (fread(doc, 1, (size_t)len, c->tmp) != (size_t)len) {
		error("export: cannot read the export back");
		goto fail;
	}
	chan = tmpfile();
	if (!chan) {
		error_errno("export: cannot create a temporary file");
		goto fail;
	}
	if (frame_channel(doc, (size_t)len, chan) || frame_print(chan))
		goto fail;
	fclose(chan);
	free(doc);
	fclose(c->tmp);
	return 0;
fail:
	if (chan)
		fclose(chan);
	free(doc);
	fclose(c->tmp);
	return -1;
}

/* ---- the host's side: import JOB.log ---- */

/*
 * A frame being read: its lines decoded one by one into vm's channel
 * decoder (runner/vmchan.h), whose export.json streams into the store as
 * it comes (json_import, one transaction, committed only once the frame
 * is whole); lava.json, the job's identity, is kept (small). Memory is one
 * channel record, whatever the frame's size.
 */
#define FRAME_MAX_IDENTITY 65536

struct frame {
	size_t no;	/* 1-based, in the order frames begin in the log */
	size_t at_line; /* log line of its BEGIN */
	size_t nlines, nbytes, next;
	size_t len; /* decoded so far */
	struct vmchan_stream chan;
	struct json_import *ji;
	bool have_export;
	char last_file[256];  /* the file the previous FILE record was part of */
	struct sbuf identity; /* lava.json */
	char why[256];	      /* set once it is broken */
};

struct log_import {
	struct store *st;
	const char *path;
	int64_t *ids;
	size_t nids, added, skipped, whole, broken;
};

static void frame_break(struct frame *f, const char *fmt, ...) PRINTF_LIKE(2, 3);
static void frame_break(struct frame *f, const char *fmt, ...)
{
	va_list ap;

	if (f->why[0])
		return;
	va_start(ap, fmt);
	vsnprintf(f->why, sizeof(f->why), fmt, ap);
	va_end(ap);
}

/* A JSON document of exactly len bytes (a channel's file is not NUL-terminated). */
static json_object *json_parse_len(const uint8_t *data, size_t len)
{
	struct json_tokener *tok;
	json_object *o;

	if (!data || len > (size_t)INT32_MAX)
		return NULL;
	tok = json_tokener_new();
	o = json_tokener_parse_ex(tok, (const char *)data, (int)len);
	if (o && (json_tokener_get_error(tok) != json_tokener_success ||
		  json_tokener_get_parse_end(tok) != len)) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

/*
 * The job's identity the frame's lava.json attests (lava_identity()'s keys
 * only, text): the lava.* keys of the merged experiments, at identity
 * impact; any other lava.* key the export itself holds becomes a claim.
 */
static void frame_identity(const struct frame *f, struct env *env)
{
	static const char *const keys[] = { "lava.job_id", "lava.device", "lava.lab" };
	json_object *ident = f->identity.len ? json_parse_len((const uint8_t *)f->identity.buf,
							      f->identity.len)
					     : NULL,
		    *v;
	size_t i;

	for (i = 0; ident && i < ARRAY_SIZE(keys); i++)
		if (json_object_object_get_ex(ident, keys[i], &v) &&
		    json_object_is_type(v, json_type_string))
			env_set(env, keys[i], IMPACT_IDENTITY, "%s", json_object_get_string(v));
	json_object_put(ident);
}

/* One whole record of the frame's channel: export.json streams on, lava.json is kept. */
static int frame_record(void *arg, uint32_t type, const uint8_t *p, uint32_t len, char *why,
			size_t whylen)
{
	struct frame *f = arg;
	const uint8_t *chunk;
	uint32_t namelen, clen;
	const char *name;
	char file[256];

	if (type != VMCHAN_FILE)
		return 0; /* an export's frame carries files only; nothing else is read */
	if (vmchan_file_chunk(p, len, &name, &namelen, &chunk, &clen, why, whylen))
		return -1;
	snprintf(file, sizeof(file), "%.*s", (int)namelen, name);
	if (strcmp(file, f->last_file) && ((!strcmp(file, "export.json") && f->have_export) ||
					   (!strcmp(file, "lava.json") && f->identity.len))) {
		snprintf(why, whylen, "file '%s' sent twice", file);
		return -1;
	}
	snprintf(f->last_file, sizeof(f->last_file), "%s", file);
	if (!strcmp(file, "export.json")) {
		f->have_export = true;
		if (json_import_feed(f->ji, chunk, clen)) {
			snprintf(why, whylen, "its experiments could not be merged");
			return -1;
		}
	} else if (!strcmp(file, "lava.json")) {
		if (f->identity.len + clen > FRAME_MAX_IDENTITY) {
			snprintf(why, whylen, "its lava.json is over %u bytes", FRAME_MAX_IDENTITY);
			return -1;
		}
		sbuf_add(&f->identity, (const char *)chunk, clen);
	}
	return 0;
}

/* A frame's BEGIN: its import opens (one transaction until its END). */
static void frame_open(struct log_import *li, struct frame *f)
{
	char *name = xasprintf("%s: results frame %zu", li->path, f->no);

	f->chan.record = frame_record;
	f->chan.arg = f;
	f->ji = json_import_begin(li->st, name, NULL);
	free(name);
}

/* A whole, verified frame: its import with the job's identity attested, committed. */
static int frame_merge(struct frame *f, struct import_result *r)
{
	struct env env = { 0 };
	struct store_import_opts opts = { .attest_prefix = "lava.", .env = &env };
	int ret;

	if (!f->have_export) {
		frame_break(f, "it holds no export.json");
		json_import_abort(f->ji);
		f->ji = NULL;
		return -1;
	}
	frame_identity(f, &env);
	json_import_set_opts(f->ji, &opts);
	ret = json_import_end(f->ji, r);
	f->ji = NULL;
	if (ret)
		frame_break(f, "its experiments could not be merged");
	env_release(&env);
	return ret;
}

static void frame_finish(struct log_import *li, struct frame *f)
{
	struct import_result r = { 0 };

	if (!f->why[0] && f->next != f->nlines)
		frame_break(f, "its END line came after %zu of its %zu lines", f->next, f->nlines);
	if (!f->why[0] && f->len != f->nbytes)
		frame_break(f, "%zu bytes where BEGIN announced %zu", f->len, f->nbytes);
	if (!f->why[0] && vmchan_stream_end(&f->chan))
		frame_break(f, "%s", f->chan.why);
	if (!f->why[0])
		frame_merge(f, &r);
	if (f->ji)
		json_import_abort(f->ji);
	vmchan_stream_release(&f->chan);
	sbuf_release(&f->identity);
	if (f->why[0]) {
		error("import: '%s': results frame %zu (log line %zu): %s; nothing imported from "
		      "it",
		      li->path, f->no, f->at_line, f->why);
		li->broken++;
	} else {
		li->ids = xrealloc(li->ids, (li->nids + r.added + 1) * sizeof(*li->ids));
		if (r.added)
			memcpy(li->ids + li->nids, r.ids, r.added * sizeof(*r.ids));
		li->nids += r.added;
		li->added += r.added;
		li->skipped += r.skipped;
		li->whole++;
	}
	free(r.ids);
	memset(f, 0, sizeof(*f));
}

/* One line of the log that carries the tag; t points just after it. */
static void frame_line(struct log_import *li, struct frame *f, const char *t, size_t lineno,
		       size_t *nframes)
{
	uint8_t bytes[FRAME_LINE_BYTES + 3];
	size_t a, b, i, n, nb = 0;
	char *end;

	if (!strncmp(t, "BEGIN ", 6)) {
		if (f->no) {
			frame_break(f,
				    "a second BEGIN at log line %zu before its END "
				    "(frames interleaved or doubled)",
				    lineno);
			frame_finish(li, f);
		}
		f->no = ++*nframes;
		f->at_line = lineno;
		if (sscanf(t + 6, "%zu %zu", &a, &b) != 2 || a > FRAME_MAX_LINES ||
		    b > (size_t)a * FRAME_LINE_BYTES ||
		    b + FRAME_LINE_BYTES <= (size_t)a * FRAME_LINE_BYTES) {
			frame_break(f, "a malformed BEGIN line");
			return;
		}
		f->nlines = a;
		f->nbytes = b;
		frame_open(li, f);
		return;
	}
	if (!strncmp(t, "END ", 4)) {
		if (!f->no) {
			error("import: '%s': log line %zu: an END line outside any results frame",
			      li->path, lineno);
			li->broken++;
			return;
		}
		if (!f->why[0] && (strtoul(t + 4, &end, 10) != f->nlines || end == t + 4))
			frame_break(f, "its END line does not repeat its line count");
		frame_finish(li, f);
		return;
	}
	if (!f->no) {
		/* a data line with no frame open: its BEGIN was lost */
		error("import: '%s': log line %zu: a results line outside any frame (its BEGIN "
		      "is missing)",
		      li->path, lineno);
		li->broken++;
		return;
	}
	if (f->why[0])
		return;
	errno = 0;
	i = strtoul(t, &end, 10);
	if (end == t || *end != ' ' || errno) {
		frame_break(f, "log line %zu: a malformed results line", lineno);
		return;
	}
	if (i < f->next) {
		frame_break(f, "line %zu came twice (again at log line %zu)", i, lineno);
		return;
	}
	if (i > f->next) {
		frame_break(f, "line %zu is missing (line %zu follows line %zu at log line %zu)",
			    f->next, i, f->next ? f->next - 1 : 0, lineno);
		return;
	}
	t = end + 1;
	for (n = 0; b64_char(t[n]); n++)
		;
	if (i >= f->nlines || n > FRAME_LINE_BYTES / 3 * 4 || base64_decode(t, n, bytes, &nb) ||
	    f->len + nb > f->nbytes || (i + 1 < f->nlines && nb != FRAME_LINE_BYTES)) {
		frame_break(f, "line %zu (log line %zu) is corrupted", i, lineno);
		return;
	}
	f->len += nb;
	f->next++;
	if (vmchan_stream_feed(&f->chan, bytes, nb))
		frame_break(f, "%s", f->chan.why);
}

/*
 * The next line of in into line (IMPORT_MAX_LINE_BYTES + 2 bytes), without
 * its newline, NUL-terminated, *n its length: 0; 1 when it is longer than
 * the limit (read no further than that); -1 at the end.
 */
static int read_line(FILE *in, char *line, size_t *n)
{
	int c = EOF;

	*n = 0;
	while (*n <= IMPORT_MAX_LINE_BYTES && (c = getc_unlocked(in)) != EOF && c != '\n')
		line[(*n)++] = (char)c;
	line[*n] = '\0';
	if (*n > IMPORT_MAX_LINE_BYTES)
		return 1;
	return c == EOF && !*n ? -1 : 0;
}

int lava_import_log(struct store *st, const char *path, FILE *in, struct import_result *r)
{
	struct log_import li = { .st = st, .path = path };
	struct frame f = { 0 };
	size_t lineno = 0, nframes = 0, pending_stray = 0, n;
	char *line = xmalloc(IMPORT_MAX_LINE_BYTES + 2);
	int got;

	memset(r, 0, sizeof(*r));
	while ((got = read_line(in, line, &n)) >= 0) {
		char *t;

		lineno++;
		if (got) {
			error("import: '%s' is refused: log line %zu has over %u bytes", path,
			      lineno, IMPORT_MAX_LINE_BYTES);
			li.broken++;
			break;
		}
		t = memmem(line, n, FRAME_TAG, strlen(FRAME_TAG));
		if (!t)
			continue;
		t += strlen(FRAME_TAG);
		if (!f.no && strncmp(t, "BEGIN ", 6) && strncmp(t, "END ", 4)) {
			if (pending_stray++)
				continue; /* said once per run of lines outside a frame */
		} else {
			pending_stray = 0;
		}
		frame_line(&li, &f, t, lineno, &nframes);
	}
	free(line);
	if (ferror(in)) {
		error_errno("import: cannot read '%s'", path);
		li.broken++;
	}
	if (f.no) {
		if (!f.why[0] && f.next < f.nlines)
			frame_break(&f, "the log ends after %zu of its %zu lines (cut)", f.next,
				    f.nlines);
		else if (!f.why[0])
			frame_break(&f, "the log ends before its END line (cut)");
		frame_finish(&li, &f);
	}
	if (!nframes && !li.broken) {
		error("import: '%s': no wakebench results frame in this log (did the job run the "
		      "wakebench test definition with its results on the console?)",
		      path);
		return -1;
	}
	r->ids = li.ids;
	r->added = li.added;
	r->skipped = li.skipped;
	if (!li.whole)
		return -1;
	return li.broken ? 1 : 0;
}
