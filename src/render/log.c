/*
 * log.c: the log's renderings (log.h). The text is a table people scan
 * like `git log --oneline`: one line per experiment, stored text made safe
 * to print, numbers in the one way every table writes them (util/number.h).
 */
#include "render/log.h"
#include "render/json.h"
#include "stats/stats.h"
#include "util/json.h"
#include "util/number.h"
#include "util/text.h"
#include "util/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void when(uint64_t ns, char *buf, size_t len)
{
	time_t t = (time_t)(ns / 1000000000ull);
	struct tm tm;

	if (!ns || !localtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%d %H:%M", &tm))
		snprintf(buf, len, "-");
}

/* "bogo ops/s (real time) 766 800", or an ab's "NO_DELAY_DEQUEUE +79.9%"; "-" without samples. */
static void result(const struct log_entry *le, char *buf, size_t len)
{
	char num[64], title[64], what[96];

	if (le->have_effect) {
		/* the token is a stored ab's parameter: stored text */
		text_printable_buf(le->what, 0, what, sizeof(what));
		fmt_pct(le->effect.e.valid ? le->effect.e.est : NAN, num, sizeof(num));
		snprintf(buf, len, "%s %s", what, num);
	} else if (!isnan(le->median)) {
		fmt_value(le->median, le->primary->unit, num, sizeof(num));
		snprintf(buf, len, "%s %s",
			 metric_title(le->primary, le->e->workload, title, sizeof(title)), num);
	} else {
		snprintf(buf, len, "-");
	}
}

/* What to know about it: an ab's verdict, a run's noise, the load, its status. */
static void notes(const struct log_entry *le, char *buf, size_t len)
{
	buf[0] = '\0';
	if (le->have_effect)
		snprintf(buf, len, "%s", stats_verdict_name(le->effect.v));
	else if (le->noisy)
		snprintf(buf, len, "noisy (CV %.1f%%)", le->cv * 100.0);
	if (le->overloaded)
		snprintf(buf + strlen(buf), len - strlen(buf), "%soverloaded", *buf ? ", " : "");
	if (strcmp(le->e->status, "complete")) {
		snprintf(buf + strlen(buf), len - strlen(buf), "%s", *buf ? ", " : "");
		text_printable_buf(le->e->status, 0, buf + strlen(buf), len - strlen(buf));
	}
	if (!*buf)
		snprintf(buf, len, "-");
}

/* Column widths: the widest cell of each stored-text column, capped. */
struct widths {
	int workload, profile, label, kernel, host, result;
};

static int width_of(const char *s, int w, int cap)
{
	int n = s ? (int)strlen(s) : 1;

	n = n > cap ? cap : n;
	return n > w ? n : w;
}

/* Stored text in a column of width w: safe to print, cut with "~" when longer. */
static void cell(FILE *f, const char *s, int w)
{
	char *t = text_printable(s ? s : "-", 0);

	if ((int)strlen(t) > w)
		fprintf(f, "%.*s~ ", w - 1, t);
	else
		fprintf(f, "%-*s ", w, t);
	free(t);
}

void render_log_text(FILE *f, const struct log *l)
{
	struct widths w = { 8, 7, 5, 6, 4, 6 };
	char buf[160], n[160], kind[64];
	size_t i;

	if (!l->n) {
		fprintf(f, "no experiments\n");
		return;
	}
	for (i = 0; i < l->n; i++) {
		const struct store_experiment *e = l->entries[i].e;

		w.workload = width_of(e->workload, w.workload, 10);
		w.profile = width_of(e->profile, w.profile, 16);
		w.label = width_of(e->label, w.label, 16);
		w.kernel = width_of(e->kernel, w.kernel, 28);
		w.host = width_of(e->host, w.host, 16);
		result(&l->entries[i], buf, sizeof(buf));
		w.result = width_of(buf, w.result, 40);
	}
	fprintf(f, "%5s  %-16s %-4s %-*s %-*s %-*s %-*s %-*s %-*s %s\n", "id", "date", "kind",
		w.workload, "workload", w.profile, "profile", w.label, "label", w.kernel, "kernel",
		w.host, "host", w.result, "result", "notes");
	for (i = 0; i < l->n; i++) {
		const struct log_entry *le = &l->entries[i];

		when(le->e->started_ns, n, sizeof(n));
		text_printable_buf(le->e->kind, 0, kind, sizeof(kind));
		fprintf(f, "%5lld  %-16s %-4s ", (long long)le->e->id, n, kind);
		cell(f, le->e->workload, w.workload);
		cell(f, le->e->profile, w.profile);
		cell(f, le->e->label, w.label);
		cell(f, le->e->kernel, w.kernel);
		cell(f, le->e->host, w.host);
		result(le, buf, sizeof(buf));
		fprintf(f, "%-*s ", w.result, buf);
		notes(le, buf, sizeof(buf));
		fprintf(f, "%s\n", buf);
	}
}

static json_object *str_or_null(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

static json_object *entry_json(const struct log_entry *le)
{
	json_object *o = json_object_new_object();
	const struct store_experiment *e = le->e;

	json_object_object_add(o, "id", json_object_new_int64(e->id));
	json_object_object_add(o, "uuid", json_object_new_string(e->uuid));
	json_object_object_add(o, "started_ns", json_object_new_int64((int64_t)e->started_ns));
	json_object_object_add(o, "kind", str_or_null(e->kind));
	json_object_object_add(o, "workload", str_or_null(e->workload));
	json_object_object_add(o, "profile", str_or_null(e->profile));
	json_object_object_add(o, "label", str_or_null(e->label));
	json_object_object_add(o, "kernel", str_or_null(e->kernel));
	json_object_object_add(o, "host", str_or_null(e->host));
	json_object_object_add(o, "status", json_object_new_string(e->status));
	json_object_object_add(o, "metric", json_object_new_string(le->primary->name));
	json_object_object_add(o, "samples", json_object_new_int64((int64_t)le->n));
	json_object_object_add(o, "median", json_double(le->median));
	json_object_object_add(o, "cv", json_double(le->cv));
	json_object_object_add(o, "noisy", json_object_new_boolean(le->noisy));
	json_object_object_add(o, "overloaded", json_object_new_boolean(le->overloaded));
	if (le->have_effect) {
		json_object *eff = render_effect_json(&le->effect.e, le->effect.v, NULL);

		json_object_object_add(eff, "feature", json_object_new_string(le->what));
		json_object_object_add(o, "effect", eff);
	}
	return o;
}

void render_log_json(FILE *f, const struct log *l)
{
	json_object *arr = json_object_new_array();
	size_t i;

	for (i = 0; i < l->n; i++)
		json_object_array_add(arr, entry_json(&l->entries[i]));
	json_print(f, arr);
	json_object_put(arr);
}

void render_log_csv(FILE *f, const struct log *l)
{
	size_t i;

	fputs("id,uuid,started_ns,kind,workload,profile,label,kernel,host,status,metric,samples,"
	      "median,cv,noisy,overloaded,feature,effect,effect_lo,effect_hi,verdict\n",
	      f);
	for (i = 0; i < l->n; i++) {
		const struct log_entry *le = &l->entries[i];
		const struct store_experiment *e = le->e;
		bool eff = le->have_effect && le->effect.e.valid;

		/* the UUID is stored text too: quoted when it needs it */
		fprintf(f, "%lld", (long long)e->id);
		csv_field(f, e->uuid, false);
		fprintf(f, ",%llu", (unsigned long long)e->started_ns);
		csv_field(f, e->kind, false);
		csv_field(f, e->workload, false);
		csv_field(f, e->profile, false);
		csv_field(f, e->label, false);
		csv_field(f, e->kernel, false);
		csv_field(f, e->host, false);
		csv_field(f, e->status, false);
		csv_field(f, le->primary->name, false);
		fprintf(f, ",%zu", le->n);
		csv_number(f, le->median);
		csv_number(f, le->cv);
		fprintf(f, ",%d,%d", le->noisy, le->overloaded);
		csv_field(f, le->have_effect ? le->what : NULL, false);
		csv_number(f, eff ? le->effect.e.est : NAN);
		csv_number(f, eff ? le->effect.e.lo : NAN);
		csv_number(f, eff ? le->effect.e.hi : NAN);
		csv_field(f, le->have_effect ? stats_verdict_key(le->effect.v) : NULL, false);
		fputc('\n', f);
	}
}
