/*
 * render.h: what `wakebench report` shows and the three ways it shows it:
 * one self-contained HTML file (html.c), a plain-text mail body and
 * GitHub-flavoured Markdown (text.c), and the raw data embedded in the
 * HTML so that `wakebench import report.html` merges it again (embed.c).
 *
 * The numbers come from compare's own JSON document (compare_document()):
 * medians, their intervals, changes, verdicts, evidence effects and
 * environment differences are read from it and never recomputed here. The
 * stored samples (model.c) only feed the plots: every sample as a point,
 * run order, the boxes' quartiles (plot geometry, not a statistic of any
 * verdict). Plots thin the points they draw when there are many; the
 * statistics always use every sample (compare's).
 */
#ifndef WAKEBENCH_RENDER_H
#define WAKEBENCH_RENDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <json-c/json.h>

#include "render/svg.h"
#include "util/number.h"
#include "core/env.h"
#include "core/experiment.h"

/* How a metric is labelled and which way is better (rep_metric()). */
struct rep_metric {
	const char *name;
	char label[96];	  /* metric_title(): "bogo ops/s (real time)", "ctxsw/op" */
	const char *unit; /* "ops/s", "ns", "" */
	int better;	  /* enum better */
};

/*
 * The label, unit and direction of a metric of workload: the one place the
 * report asks (the metric registry, metric_def(), metric_title()).
 * stored_better is the direction stored with the samples, for a name the
 * registry does not know.
 */
void rep_metric(const char *name, const char *workload, int stored_better, struct rep_metric *out);

/* The experiments that share one reproducing command. */
struct rep_repro {
	char *cmd;		  /* as someone on another machine types it */
	char *equiv, *equiv_note; /* another tool's command and what it is; NULL: none */
	size_t *exps, n;	  /* indices into rep.exps */
};

/*
 * A posted result in the report (an experiment of kind "external", imported
 * from another tool's output): where it came from, not measured here.
 */
struct rep_posted {
	size_t exp;				       /* index into rep.exps */
	size_t group;				       /* the group it is in */
	char *tool, *version, *format, *args, *source; /* env external.*; NULL: unknown */
	char note[192]; /* "stress-ng 0.21.00, 1 run, not measured here" */
};

/* One sample of the primary metric. */
struct rep_point {
	double v;
	uint64_t t_ns;	/* start, CLOCK_REALTIME: run order */
	uint32_t exp;	/* index into rep.exps */
	uint32_t index; /* within its experiment */
};

struct rep_series {
	char *name;
	int better;
	double *v;
	size_t n, alloc;
};

struct rep_group {
	json_object *j; /* its object in the compare document */
	const char *title;
	/*
	 * As shown: compare's title, or in an ab's report the arm as ab names
	 * it ("A: DELAY_DEQUEUE=on"; arm, malloc'd).
	 */
	const char *name;
	char *arm;
	bool baseline;
	struct rep_point *pts;
	size_t npts, alloc;
	struct rep_series *ev; /* evidence metrics, as stored */
	size_t nev;
};

struct rep {
	json_object *doc; /* compare's document (owned) */
	const char *by, *workload;
	struct rep_metric primary;
	double margin, conf;
	struct rep_group *g; /* in the document's order: the baseline first */
	size_t ng;
	struct store_experiment *exps; /* the experiments listed, oldest first */
	size_t nexps;
	size_t *exp_n; /* samples of each in the report's groups (0: not shown) */
	size_t *by_id; /* the slots of exps in the order of their ids */
	/* evidence metrics in any group, in order of appearance */
	struct rep_metric *ev;
	size_t nev;
	size_t nsamples;
	/* the two arms of one feature's ab experiments (groups named as ab names them) */
	bool ab;
	/* the baseline's machine: the start fingerprint of its first experiment */
	struct env machine;
	int64_t machine_exp; /* 0: none stored */
	struct rep_repro *repro;
	size_t nrepro;
	struct rep_posted *posted; /* in the order of rep.exps */
	size_t nposted;
	const char *cmdline; /* the command that made this report */
	char *report_cmd;    /* the same as someone elsewhere types it */
	const char *version;
	uint64_t made_ns; /* CLOCK_REALTIME */
	/* the raw data block for the HTML (embed.c), or why it is left out */
	struct sbuf data;
	char *data_why;
};

/* ---- the renderers: each appends the whole document to out ---- */

void rep_html(const struct rep *r, struct sbuf *out);
/* Plain ASCII, lines of at most REP_EMAIL_COLS columns, no tabs. */
#define REP_EMAIL_COLS 72
void rep_email(const struct rep *r, struct sbuf *out);
void rep_markdown(const struct rep *r, struct sbuf *out);

/* ---- helpers the renderers share (text.c) ---- */

/* "0.0123", "<0.0001", "-" (one boot each: no p-value is claimed). */
void rep_fmt_p(json_object *group, char *buf, size_t len);
/* "2026-12-02 07:30 UTC" for a CLOCK_REALTIME time. */
void rep_fmt_when(uint64_t ns, char *buf, size_t len);
/* One line of a mail, wrapped at REP_EMAIL_COLS (continuations indented by 4). */
void rep_email_line(struct sbuf *out, const char *fmt, ...) PRINTF_LIKE(2, 3);
/* Stored text in Markdown, the characters Markdown acts on escaped. */
void rep_md_cell(struct sbuf *out, const char *s);
/*
 * What the report is about, after "wakebench report: ": "pipe, ops/s
 * (real time) by kernel", or an ab's "pipe, DELAY_DEQUEUE=on (A) vs.
 * DELAY_DEQUEUE=off (B), ops/s (real time)" (malloc'd).
 */
char *rep_title(const struct rep *r);
/*
 * Group g's effect in one sentence, after its title (compare's name of the
 * effect, "NO_DELAY_DEQUEUE: "): "+78.4% ops/s (real time) [+69.5%,
 * +91.7%], improvement beyond the 2% margin" (malloc'd).
 */
char *rep_headline(const struct rep *r, size_t g);
/*
 * The verdict in a word for a badge, and its CSS suffix: "improvement",
 * "regression", "no change" ("no-change"), "inconclusive", "insufficient".
 */
const char *rep_badge(json_object *group, const char **key);
/* One fact about the baseline's machine: "kernel", "6.18.44". */
struct rep_fact {
	const char *label;
	char value[320];
};
/* The baseline's machine from its stored fingerprint: how many facts were written. */
size_t rep_machine(const struct rep *r, struct rep_fact *out, size_t max);
/* "experiment 1 (cb5e6e53): run pipe on 6.6, host h, 8 samples" for a reproducer (malloc'd). */
char *rep_repro_what(const struct rep *r, const struct rep_repro *rp);
/* The HTML page up to and including <body>, with the report's CSS. */
void rep_html_begin(struct sbuf *b, const char *version, const char *title);
/* A number member of o, NAN when absent or null. */
double rep_num(json_object *o, const char *key);
/* A string member of o, NULL when absent or null. */
const char *rep_str(json_object *o, const char *key);
/* Any member of o, NULL when absent or null (o may be NULL). */
json_object *rep_obj(json_object *o, const char *key);

/* ---- the embedded raw data (embed.c) ---- */

/*
 * The marker that opens the raw data block: an element whose text is the
 * zlib-compressed export JSON in base64, 76 characters a line.
 */
#define EMBED_ID "wakebench-data"

/*
 * Append the block for the export JSON doc[0..len) to out: a <pre> with
 * the format, byte counts and SHA-256 as attributes. limit > 0: when the
 * encoded block would be larger, nothing is appended and -1 is returned
 * (*encoded gets the size reached when it gave up). 0 on success.
 */
int embed_write(struct sbuf *out, const char *doc, size_t len, size_t limit, size_t *encoded);

/*
 * Is the buffer (a file's start) a report as wakebench writes it: a
 * "<!DOCTYPE html>" line first and its generator line in the head?
 */
bool embed_detect(const char *buf, size_t len);

struct embed_limits {
	size_t max_bytes; /* decompressed, absolute */
	size_t max_ratio; /* decompressed over compressed, */
	size_t any_ratio; /* ... for a block that decompresses to more than this */
};

/*
 * Find the block (the first line that starts "<pre id=\"wakebench-data\"": a
 * report escapes every '<' of stored text) in html[0..len), refuse it when
 * its announced size passes lim, then decode, decompress and hand each
 * piece of the document to put (non-zero stops: -1 with why empty), never
 * past the size it announces; its SHA-256 is checked at the end (a caller
 * commits nothing before 0). -1 with a reason in why when there is none
 * or it is damaged (cut, altered, not base64, wrong length or checksum).
 */
int embed_read(const char *html, size_t len, const struct embed_limits *lim,
	       int (*put)(void *arg, const void *buf, size_t len), void *arg, char *why,
	       size_t whylen);
/* embed_read() into *doc (malloc'd, NUL-terminated) and *doclen: for t-embed and fuzz/mkseed. */
int embed_extract(const char *html, size_t len, char **doc, size_t *doclen, char *why,
		  size_t whylen);

/* ---- a stored bisection (bisect.c; the document is bisect_document()'s) ---- */

struct rep_bisect {
	json_object *doc;
	const char *cmdline, *version;
	uint64_t made_ns;
};

/* A step's outcome: "good, position 0.12 [-0.20, 0.44] at 99.00%, ..., 4 boots". */
void rep_bisect_outcome(json_object *step, char *buf, size_t len);
void rep_bisect_html(const struct rep_bisect *r, struct sbuf *out);
/* The text `bisect report` prints: the bisection, one line per step, the result. */
void rep_bisect_text(FILE *f, json_object *doc);
void rep_bisect_email(const struct rep_bisect *r, struct sbuf *out);
void rep_bisect_markdown(const struct rep_bisect *r, struct sbuf *out);

#endif
