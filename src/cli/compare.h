/*
 * compare.h: compare's analysis as a document for other commands (`report`
 * renders it), so that they show the very numbers `compare` prints and
 * compute no statistics of their own.
 */
#ifndef WAKEBENCH_COMPARE_H
#define WAKEBENCH_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

#include "store/store.h"

struct compare_request {
	const char *by;	      /* NULL: compare's default (kernel) */
	const char *baseline; /* NULL: compare's default */
	double margin;	      /* <= 0: compare's default */
	bool pool;
	const struct store_filter *filter; /* NULL: every experiment */
	const int64_t *only;		   /* when not NULL: only these experiments */
	size_t nonly;
};

/*
 * compare's JSON document (what `compare --format json` prints) for rq,
 * with, in every group, "parts": [{"experiment": ID, "config": NAME}], the
 * experiments' configs whose samples it holds. Warnings go to stderr as
 * compare gives them. Returns EXIT_OK and *out (the caller's reference),
 * or the exit status after saying why (*out NULL).
 */
int compare_document(struct store *st, const struct compare_request *rq, json_object **out);

#endif
