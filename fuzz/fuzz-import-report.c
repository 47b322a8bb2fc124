/*
 * fuzz-import-report.c: `wakebench import REPORT.html`: the report taken
 * for one by its framing (embed_detect), its raw data block found at a
 * line's start, the block's sizes and checksum read from its tag and held
 * to the ratio and absolute limits, its base64 decoded and inflated as it
 * is read (embed_read in src/render/embed.c), and the export inside it
 * streamed into the store (import_report in src/engine/import.c), on
 * arbitrary HTML.
 *
 * Input: the HTML, imported as it is into a fresh empty store (import.h).
 * A mutated block almost never keeps its SHA-256, which would keep the
 * fuzzer out of everything behind the check (the export's parser fed by
 * the inflater); so the block is then resealed, as fuzz-vmchan recomputes
 * CRCs: whatever its base64 decodes and inflates to (up to RESEAL_MAX bytes,
 * whatever zlib's own check says) is written again as a whole block by
 * embed_write() in its place, and that report imported too. It must merge
 * exactly as its document does when fed to the export parser directly,
 * unless it is over the ratio limit. Inputs that import_file() would not
 * take for a report are skipped (fuzz-lava-log reads them).
 */
#include "import.h"
#include "render/render.h"
#include "util/digest.h"

#include <zlib.h>

/* A resealed document at most this long: the importer's own token limit stays out of reach. */
#define RESEAL_MAX (256u << 10)

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	import_init();
	return 0;
}

/* The first "<pre id=\"wakebench-data\"" at a line's start (after indentation), as embed.c. */
static const char *block_at(const char *html, size_t len)
{
	static const char tag[] = "<pre id=\"" EMBED_ID "\"";
	const char *p = html, *q;

	while ((p = memmem(p, (size_t)(html + len - p), tag, sizeof(tag) - 1))) {
		for (q = p; q > html && (q[-1] == ' ' || q[-1] == '\t'); q--)
			;
		if (q > html && (q[-1] == '\n' || q[-1] == '\r'))
			return p;
		p++;
	}
	return NULL;
}

/* Decode the base64 of s[0..n) as embed.c reads it and inflate what it can: the output. */
static size_t salvage(const char *s, size_t n, unsigned char *out, size_t cap)
{
	unsigned char *z = xmalloc(n / 4 * 3 + 3);
	unsigned acc = 0, nacc = 0;
	size_t nz = 0, i;
	z_stream zs;
	int v;

	for (i = 0; i < n && s[i] != '='; i++) {
		if (s[i] == ' ' || s[i] == '\n' || s[i] == '\r' || s[i] == '\t')
			continue;
		if ((v = base64_value((unsigned char)s[i])) < 0)
			break;
		acc = acc << 6 | (unsigned)v;
		if (++nacc == 4) {
			z[nz++] = (unsigned char)(acc >> 16);
			z[nz++] = (unsigned char)(acc >> 8);
			z[nz++] = (unsigned char)acc;
			acc = nacc = 0;
		}
	}
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK)
		abort();
	zs.next_in = z;
	zs.avail_in = (uInt)nz;
	zs.next_out = out;
	zs.avail_out = (uInt)cap;
	/* Z_FINISH-less: whatever comes out before the end, an error or the cap */
	while (zs.avail_out && inflate(&zs, Z_NO_FLUSH) == Z_OK)
		;
	inflateEnd(&zs);
	free(z);
	return cap - zs.avail_out;
}

/* The document fed to the export parser directly, into a fresh store: as import_file() returns. */
static int import_doc(const unsigned char *doc, size_t len, size_t *added)
{
	char dst[4200];
	struct import_result r = { 0 };
	struct json_import *ji;
	struct store *st;
	int ret;

	fuzz_write("dst.db", import_template, import_template_len);
	fuzz_path(dst, sizeof(dst), "dst.db");
	if (store_open(dst, 0, &st))
		die("fuzz: cannot open the copy of the template store '%s'", dst);
	ji = json_import_begin(st, "doc", NULL);
	if (json_import_feed(ji, doc, len)) {
		json_import_abort(ji);
		ret = -1;
	} else {
		ret = json_import_end(ji, &r);
	}
	*added = r.added;
	free(r.ids);
	store_close(st);
	fuzz_dir_clean();
	return ret;
}

/* The report with its block resealed around what it inflates to, imported; then the document. */
static void reseal(const char *html, size_t len)
{
	const char *tag = block_at(html, len), *gt, *end;
	struct sbuf out = { 0 };
	unsigned char *doc;
	size_t n, enc, zbytes = 0, added_report = 0, added_doc = 0;
	const char *zb;
	int rc_report, rc_doc;

	if (!tag || !(gt = memchr(tag, '>', (size_t)(html + len - tag))))
		return;
	/* a block cut short is resealed as far as it goes */
	end = memmem(gt, (size_t)(html + len - gt), "</pre>", 6);
	if (!end)
		end = html + len;
	doc = xmalloc(RESEAL_MAX);
	n = salvage(gt + 1, (size_t)(end - gt - 1), doc, RESEAL_MAX);
	if (!n) {
		free(doc);
		return;
	}
	sbuf_add(&out, html, (size_t)(tag - html));
	embed_write(&out, (const char *)doc, n, 0, &enc);
	if (end < html + len)
		end += 6;
	if (end < html + len && *end == '\n')
		end++;
	sbuf_add(&out, end, (size_t)(html + len - end));
	if (out.len == len && !memcmp(out.buf, html, len)) {
		/* sealed already: the first import was this one */
		sbuf_release(&out);
		free(doc);
		return;
	}
	zb = strstr(out.buf + (tag - html), "data-compressed=\"");
	FUZZ_CHECK(zb && sscanf(zb + 17, "%zu", &zbytes) == 1);
	fuzz_write("report.html", out.buf, out.len);
	rc_report = import_one_n("report.html", &added_report);
	rc_doc = import_doc(doc, n, &added_doc);
	free(doc);
	/* the block is transparent: the report merges as its document does */
	if (!embed_detect(out.buf, out.len < 4096 ? out.len : 4096)) {
		/* its generator line was in the old block: now a log, not a report */
	} else if (n <= IMPORT_ANY_RATIO_BYTES || n / IMPORT_MAX_INFLATE_RATIO <= zbytes) {
		FUZZ_CHECK((rc_report < 0) == (rc_doc < 0));
		FUZZ_CHECK(added_report == added_doc);
	} else {
		FUZZ_CHECK(rc_report < 0 && !added_report);
	}
	sbuf_release(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (import_type_of(data, size) != IMPORT_REPORT)
		return 0;
	fuzz_write("report.html", data, size);
	import_one("report.html");
	reseal((const char *)data, size);
	return 0;
}
