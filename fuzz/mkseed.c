/*
 * mkseed.c: writes the seeds of fuzz/corpus/ that are not copies of test
 * fixtures, with wakebench's own writers so that they are exactly what a
 * guest or an older wakebench produces (fuzz/make-corpus.sh runs it).
 *
 *   mkseed vmchan DIR      result-channel captures, as `vm` guests send them
 *   mkseed store DIR       a store of every schema version (tests/unit/store-legacy.h)
 *   mkseed report HTML DOC|- OUT [LEVEL [BYTES|max]]
 *                          the report HTML with its raw data block replaced by one
 *                          holding DOC (-: the report's own document), compressed at
 *                          zlib LEVEL (default 1, as `report`; 0: stored blocks, whose
 *                          bytes a fuzzer's mutations change one by one), announcing
 *                          BYTES decompressed (default the truth; max: the ratio limit
 *                          times the compressed size, a lie a bomb would tell)
 *   mkseed lava DOC OUT [IDENTITY]
 *                          DOC framed as `export --format lava` prints it on a console,
 *                          with the job identity IDENTITY (lava.json; JSON text)
 *
 * The stores are compacted afterwards by make-corpus.sh (sqlite3 VACUUM with
 * small pages) to keep the corpus small.
 */
#include "engine/import.h"
#include "render/render.h"
#include "runner/vmchan.h"
#include "store/store.h"
#include "../tests/unit/store-legacy.h"
#include "util/digest.h"
#include "util/util.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static struct vmchan_writer open_capture(const char *dir, const char *name)
{
	char path[4200];
	struct vmchan_writer w = { .fd = -1, .seq = 0 };

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	w.fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (w.fd < 0)
		die_errno("cannot create '%s'", path);
	return w;
}

static void done(struct vmchan_writer *w)
{
	if (vmchan_finish(w) || close(w->fd))
		die_errno("cannot write a capture");
}

static void vmchan_seeds(const char *dir)
{
	static const char db[] = "SQLite format 3";
	struct vmchan_writer w;

	/* What a successful `vm -- run` sends. */
	w = open_capture(dir, "run.bin");
	if (vmchan_send(&w, VMCHAN_HELLO, "6.1.0-57-amd64", 14) ||
	    vmchan_send_output(&w, 1, "pipe  ops/s  1234.5\n", 20) ||
	    vmchan_send_output(&w, 2, "wakebench: warning: emulated (TCG)\n", 35) ||
	    vmchan_send_file(&w, "results.db", db, sizeof(db)) ||
	    vmchan_send_file(&w, "empty", "", 0) ||
	    vmchan_send_status(&w, 0, 2000000000ull, 1500000000ull))
		die_errno("cannot write a capture");
	done(&w);
	/* A file in two chunks (consecutive FILE records of one name), a failed status. */
	w = open_capture(dir, "chunks.bin");
	if (vmchan_send(&w, VMCHAN_HELLO, "6.12.25+rpt-rpi-2712", 20) ||
	    vmchan_send(&w, VMCHAN_FILE, "\x05\0\0\0env.j{\"a\":", 13) ||
	    vmchan_send(&w, VMCHAN_FILE, "\x05\0\0\0env.j1}", 11) ||
	    vmchan_send_status(&w, 77, 1000, 2000))
		die_errno("cannot write a capture");
	done(&w);
	/* The least a guest can send: END alone. */
	w = open_capture(dir, "end.bin");
	done(&w);
}

static void store_seeds(const char *dir)
{
	char path[4200];
	int v;

	for (v = 1; v <= store_schema_version(); v++) {
		snprintf(path, sizeof(path), "%s/v%d.db", dir, v);
		unlink(path);
		if (store_create_legacy(path, v))
			die("cannot create '%s'", path);
	}
}

static void write_out(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0 || write_full(fd, data, len) != (ssize_t)len || close(fd))
		die_errno("cannot write '%s'", path);
}

static void slurp(const char *path, char **buf, size_t *len)
{
	if (read_file(path, buf, len))
		die_errno("cannot read '%s'", path);
}

/* A raw data block as embed_write() writes it, at any zlib level, announcing any size. */
static void put_block(struct sbuf *out, const char *doc, size_t len, int level,
		      const char *announce)
{
	uLongf zlen = compressBound(len);
	unsigned char *z = xmalloc(zlen);
	size_t i, col = 0, bytes = len;
	char sha[65], quad[5];

	if (compress2(z, &zlen, (const Bytef *)doc, len, level) != Z_OK)
		die("cannot compress the document");
	if (announce && !strcmp(announce, "max"))
		bytes = (size_t)zlen * IMPORT_MAX_INFLATE_RATIO;
	else if (announce)
		bytes = strtoull(announce, NULL, 10);
	sha256_hex(doc, len, sha);
	sbuf_addf(out,
		  "<pre id=\"" EMBED_ID "\" data-format=\"wakebench-export\" "
		  "data-encoding=\"zlib+base64\" data-bytes=\"%zu\" data-compressed=\"%lu\" "
		  "data-sha256=\"%s\">\n",
		  bytes, (unsigned long)zlen, sha);
	for (i = 0; i < zlen; i += 3) {
		sbuf_add(out, quad, base64_encode(z + i, zlen - i < 3 ? zlen - i : 3, quad));
		if ((col += 4) == 76) {
			sbuf_add(out, "\n", 1);
			col = 0;
		}
	}
	if (col)
		sbuf_add(out, "\n", 1);
	sbuf_puts(out, "</pre>\n");
	free(z);
}

/* mkseed report HTML DOC|- OUT [LEVEL [BYTES|max]] (see the top of this file) */
static void report_seed(int argc, char **argv)
{
	static const char tag[] = "\n<pre id=\"" EMBED_ID "\"";
	char *html, *doc, *pre, *post, why[300];
	struct sbuf out = { 0 };
	size_t len, doclen;

	slurp(argv[2], &html, &len);
	pre = memmem(html, len, tag, sizeof(tag) - 1);
	post = pre ? memmem(pre, (size_t)(html + len - pre), "</pre>\n", 7) : NULL;
	if (!post)
		die("'%s' has no raw data block", argv[2]);
	pre++;
	post += 7;
	if (!strcmp(argv[3], "-")) {
		if (embed_extract(html, len, &doc, &doclen, why, sizeof(why)))
			die("'%s': %s", argv[2], why);
	} else {
		slurp(argv[3], &doc, &doclen);
	}
	sbuf_add(&out, html, (size_t)(pre - html));
	put_block(&out, doc, doclen, argc > 5 ? atoi(argv[5]) : 1, argc > 6 ? argv[6] : NULL);
	sbuf_add(&out, post, (size_t)(html + len - post));
	write_out(argv[4], out.buf, out.len);
	sbuf_release(&out);
	free(doc);
	free(html);
}

/* mkseed lava DOC OUT [IDENTITY]: the channel lava.c frames, its console lines */
static void lava_seed(int argc, char **argv)
{
	const char *id = argc > 4 ? argv[4] : "{\"lava.job_id\":\"7\"}";
	FILE *chan = tmpfile();
	struct vmchan_writer w = { .fd = chan ? fileno(chan) : -1 };
	struct sbuf out = { 0 };
	uint8_t buf[48];
	char line[65];
	size_t doclen, n, i = 0;
	char *doc;
	long bytes;

	slurp(argv[2], &doc, &doclen);
	if (!chan || vmchan_send(&w, VMCHAN_HELLO, "6.12.75", 7) ||
	    vmchan_send_file(&w, "lava.json", id, strlen(id)) ||
	    vmchan_send_file(&w, "export.json", doc, doclen) || vmchan_finish(&w) ||
	    (bytes = lseek(w.fd, 0, SEEK_END)) < 0 || lseek(w.fd, 0, SEEK_SET))
		die_errno("cannot write the channel");
	sbuf_addf(&out, "\nWBR1 BEGIN %zu %ld\n", ((size_t)bytes + 47) / 48, bytes);
	while ((n = fread(buf, 1, sizeof(buf), chan)) > 0) {
		base64_encode(buf, n, line);
		sbuf_addf(&out, "WBR1 %zu %s\n", i++, line);
	}
	sbuf_addf(&out, "WBR1 END %zu\n", i);
	write_out(argv[3], out.buf, out.len);
	sbuf_release(&out);
	fclose(chan);
	free(doc);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "vmchan"))
		vmchan_seeds(argv[2]);
	else if (argc == 3 && !strcmp(argv[1], "store"))
		store_seeds(argv[2]);
	else if (argc >= 5 && argc <= 7 && !strcmp(argv[1], "report"))
		report_seed(argc, argv);
	else if ((argc == 4 || argc == 5) && !strcmp(argv[1], "lava"))
		lava_seed(argc, argv);
	else
		die_usage("usage: mkseed vmchan|store DIR, mkseed report HTML DOC|- OUT [LEVEL "
			  "[BYTES|max]], mkseed lava DOC OUT [IDENTITY]");
	return 0;
}
