/* SPDX-License-Identifier: MIT */
/*
 * source.deepspan.clock-fit (doc/scale.md, "Pair records"): pass 1 of filter.deepspan.sync on the pair records
 * of filter.deepspan.sync-extract, and its report.  The records are merged by (time, file, port), the order in
 * which sync's pass 1 reads the same messages from the pair traces (message by message, ties to the lower
 * input port), and each goes through sync's own steps (sync_pass1_sweep, _timed, _tcp, _span,
 * sync_http_record), so the report is the one sync writes with `report-only=true`.  No message is emitted.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include <glib.h>

#include "add-port.h"
#include "pair-records.h"
#include "params.h"
#include "sync-filter/sync.h"
#include "clock-fit-source/component.h"

#define CLOCK_FIT_CLASS_NAME "source.deepspan.clock-fit"
#define CLOCK_FIT_MAX_PORTS 65536

struct fit_comp {
	struct sync_comp sync;		/* the fit's parameters, as filter.deepspan.sync's (report-only) */
	GPtrArray *records;		/* owned: the files' paths (char *, owned) */
};

/* A clock of one records file: what names its host, and the host once a record used it. */
struct fit_clock {
	bool defined;
	char uuid[37];
	bool origin_is_unix_epoch;
	char *name;			/* owned; NULL none */
	char *hostname;			/* owned; NULL none */
	int host;			/* -1 until a record used it */
};

struct fit_file {
	struct ds_pair_reader reader;	/* `cur` is the head record while `has_head` */
	bool has_head;
	GArray *clocks;			/* owned: struct fit_clock by id */
	GPtrArray *inputs;		/* owned: struct sync_input * by port (NULL: no record yet) */
};

struct fit_iter {
	struct sync_iter sync;		/* pass 1's state; sync.self is this iterator */
	struct fit_comp *comp;		/* borrowed */
	struct fit_file *files;		/* owned: one per records file */
	unsigned int file_count;
	bool done;
};

static void comp_destroy(struct fit_comp *comp)
{
	if (comp) {
		sync_comp_release(&comp->sync);
		if (comp->records) {
			g_ptr_array_free(comp->records, TRUE);
		}
		g_free(comp);
	}
}

/* `records`: a non-empty array of paths; -1 with the cause. */
static int parse_records(struct fit_comp *comp, const struct ds_params *p)
{
	const bt_value *v = ds_params_borrow(p, "records");
	char description[128] = "nothing";
	uint64_t i, n = v && bt_value_is_array(v) ? bt_value_array_get_length(v) : 0;

	for (i = 0; i < n; i++) {
		if (!bt_value_is_string(bt_value_array_borrow_element_by_index_const(v, i))) {
			n = 0;
			break;
		}
	}
	if (n == 0) {
		if (v) {
			ds_describe_value(v, description, sizeof(description));
		}
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(p->self_comp,
			"%s: parameter `records`: expected a non-empty array of paths (strings) of files written by "
			"filter.deepspan.sync-extract's `records`, got %s (doc/scale.md, \"Pair records\").",
			CLOCK_FIT_CLASS_NAME, description);
		return -1;
	}
	comp->records = g_ptr_array_new_with_free_func(g_free);
	for (i = 0; i < n; i++) {
		g_ptr_array_add(comp->records, g_strdup(bt_value_string_get(
			bt_value_array_borrow_element_by_index_const(v, i))));
	}
	return 0;
}

bt_component_class_initialize_method_status clock_fit_component_initialize(
		bt_self_component_source *self, bt_self_component_source_configuration *config,
		const bt_value *params, void *init_data)
{
	static const char *const known[] = { "records", "report", "reference", "match", "pair-expiry", NULL };
	bt_self_component *self_comp = bt_self_component_source_as_self_component(self);
	struct ds_params p = ds_params_make(self_comp, params, CLOCK_FIT_CLASS_NAME);
	bt_component_class_initialize_method_status status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK;
	struct fit_comp *comp = g_new0(struct fit_comp, 1);

	(void) config;
	(void) init_data;
	comp->sync.self_comp = self_comp;
	comp->sync.class_name = CLOCK_FIT_CLASS_NAME;
	comp->sync.formula_param = "formula";
	comp->sync.report_only = true;
	if (ds_params_check_names(&p, known) || sync_parse_fit_params(&comp->sync, &p) || parse_records(comp, &p)) {
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		goto error;
	}
	if (!comp->sync.report_path) {
		BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_COMPONENT(self_comp,
			"%s: parameter `report` is required: the path of the report to write (doc/sync.md, \"Report\").",
			CLOCK_FIT_CLASS_NAME);
		status = BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_ERROR;
		goto error;
	}
	status = ds_add_port_status(bt_self_component_source_add_output_port(self, "out", NULL, NULL), self_comp,
		CLOCK_FIT_CLASS_NAME, "the output port `out`");
	if (status != BT_COMPONENT_CLASS_INITIALIZE_METHOD_STATUS_OK) {
		goto error;
	}
	bt_self_component_set_data(self_comp, comp);
	goto end;

error:
	comp_destroy(comp);
end:
	return status;
}

void clock_fit_component_finalize(bt_self_component_source *self)
{
	comp_destroy(bt_self_component_get_data(bt_self_component_source_as_self_component(self)));
}

static void file_release(struct fit_file *f)
{
	guint i;

	ds_pair_reader_close(&f->reader);
	for (i = 0; f->clocks && i < f->clocks->len; i++) {
		struct fit_clock *c = &g_array_index(f->clocks, struct fit_clock, i);

		g_free(c->name);
		g_free(c->hostname);
	}
	if (f->clocks) {
		g_array_free(f->clocks, TRUE);
	}
	for (i = 0; f->inputs && i < f->inputs->len; i++) {
		struct sync_input *in = g_ptr_array_index(f->inputs, i);

		if (in) {
			g_array_free(in->hosts_seen, TRUE);
			g_free(in);
		}
	}
	if (f->inputs) {
		g_ptr_array_free(f->inputs, TRUE);
	}
}

static void iter_destroy(struct fit_iter *it)
{
	unsigned int i;

	if (!it) {
		return;
	}
	for (i = 0; it->files && i < it->file_count; i++) {
		file_release(&it->files[i]);
	}
	g_free(it->files);
	sync_iter_release(&it->sync);
	g_free(it);
}

bt_message_iterator_class_initialize_method_status clock_fit_iterator_initialize(
		bt_self_message_iterator *self, bt_self_message_iterator_configuration *config,
		bt_self_component_port_output *port)
{
	bt_message_iterator_class_initialize_method_status status =
		BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_OK;
	struct fit_iter *it = g_new0(struct fit_iter, 1);
	unsigned int i;

	(void) config;
	(void) port;
	it->comp = bt_self_component_get_data(bt_self_message_iterator_borrow_component(self));
	it->sync.comp = &it->comp->sync;
	it->sync.self = self;
	it->sync.owner = (struct ds_upstream_owner) { .self_msg_iter = self,
		.self_comp = it->comp->sync.self_comp, .class_name = CLOCK_FIT_CLASS_NAME, .doc_page = "doc/scale.md" };
	sync_iter_tables_init(&it->sync);
	it->file_count = it->comp->records->len;
	it->files = g_new0(struct fit_file, it->file_count);
	for (i = 0; i < it->file_count; i++) {
		it->files[i].clocks = g_array_new(FALSE, TRUE, sizeof(struct fit_clock));
		it->files[i].inputs = g_ptr_array_new();
	}
	if (sync_pass1_init(&it->sync)) {
		status = BT_MESSAGE_ITERATOR_CLASS_INITIALIZE_METHOD_STATUS_MEMORY_ERROR;
		goto error;
	}
	bt_self_message_iterator_set_data(self, it);
	goto end;

error:
	iter_destroy(it);
end:
	return status;
}

void clock_fit_iterator_finalize(bt_self_message_iterator *self)
{
	iter_destroy(bt_self_message_iterator_get_data(self));
}

/* `what` is wrong with a records file (it names the file): the cause; -1. */
static int fail(struct fit_iter *it, const char *what)
{
	BT_CURRENT_THREAD_ERROR_APPEND_CAUSE_FROM_MESSAGE_ITERATOR(it->sync.self,
		"%s: parameter `records`: %s; write it again with filter.deepspan.sync-extract's `records` "
		"(doc/scale.md, \"Pair records\").", CLOCK_FIT_CLASS_NAME, what);
	return -1;
}

/* `what` is wrong at the reading position of `f`: the cause, naming the file and the byte; -1. */
static int fail_at(struct fit_iter *it, const struct fit_file *f, const char *what)
{
	char *text = g_strdup_printf("\"%s\", byte %" PRIu64 ": %s", f->reader.path, f->reader.offset, what);
	int ret = fail(it, text);

	g_free(text);
	return ret;
}

/* A clock item of file `f`: kept (its strings copied) until its records name it. */
static int define_clock(struct fit_iter *it, struct fit_file *f, const struct ds_pair_clock *d)
{
	struct fit_clock *c;

	if (d->id > f->clocks->len) {
		return fail_at(it, f, "a clock whose number skips the next one");
	}
	if (d->id == f->clocks->len) {
		g_array_set_size(f->clocks, d->id + 1);
	}
	c = &g_array_index(f->clocks, struct fit_clock, d->id);
	if (c->defined) {
		return fail_at(it, f, "a clock defined twice");
	}
	c->defined = true;
	g_strlcpy(c->uuid, d->has_uuid ? d->uuid : "", sizeof(c->uuid));
	c->origin_is_unix_epoch = d->origin_is_unix_epoch;
	c->name = g_strdup(d->name);
	c->hostname = g_strdup(d->hostname);
	c->host = -1;
	return 0;
}

/* The next record of `f` into its head (clock items taken on the way); -1 with the cause. */
static int advance(struct fit_iter *it, struct fit_file *f)
{
	char why[512];

	f->has_head = false;
	for (;;) {
		switch (ds_pair_reader_next(&f->reader, why, sizeof(why))) {
		case DS_PAIR_READ_OK:
			if (f->reader.cur.item != DS_PAIR_ITEM_CLOCK) {
				f->has_head = true;
				return 0;
			}
			if (define_clock(it, f, &f->reader.cur.clock_def)) {
				return -1;
			}
			break;
		case DS_PAIR_READ_END:
			return 0;
		default:
			return fail(it, why);
		}
	}
}

/* The file whose head comes first: (time, file, port); NULL when every file has ended. */
static struct fit_file *first_file(struct fit_iter *it)
{
	struct fit_file *best = NULL;
	unsigned int i;

	for (i = 0; i < it->file_count; i++) {
		struct fit_file *f = &it->files[i];

		/* a tie goes to the earlier file, whose ports come first; a file's own records are in order */
		if (f->has_head && (!best || f->reader.cur.ns < best->reader.cur.ns)) {
			best = f;
		}
	}
	return best;
}

/* The input of the head's port (made on first sight) and its host (named on first sight); -1 with the cause. */
static int head_input_and_host(struct fit_iter *it, struct fit_file *f, struct sync_input **in_out, int *host_out)
{
	const struct ds_pair_record *r = &f->reader.cur;
	struct fit_clock *c;
	struct sync_input *in;

	if (r->port >= CLOCK_FIT_MAX_PORTS) {
		return fail_at(it, f, "a record of an input port beyond 65535");
	}
	if (r->clock >= f->clocks->len || !(c = &g_array_index(f->clocks, struct fit_clock, r->clock))->defined) {
		return fail_at(it, f, "a record of a clock not defined before it");
	}
	if (r->port >= f->inputs->len) {
		g_ptr_array_set_size(f->inputs, r->port + 1);
	}
	in = g_ptr_array_index(f->inputs, r->port);
	if (!in) {
		in = g_new0(struct sync_input, 1);
		in->hosts_seen = g_array_new(FALSE, TRUE, sizeof(gboolean));
		g_ptr_array_index(f->inputs, r->port) = in;
	}
	if (c->host < 0) {
		c->host = sync_host_by_identity(&it->sync, c->uuid, c->hostname, c->origin_is_unix_epoch, c->name);
		if (c->host < 0) {
			return -1;
		}
	}
	sync_input_saw_host(in, c->host);
	*in_out = in;
	*host_out = c->host;
	return 0;
}

/* Pass 1's steps for the head record of `f`, as sync_pass1_run() takes a message. */
static int take_head(struct fit_iter *it, struct fit_file *f)
{
	const struct ds_pair_record *r = &f->reader.cur;
	struct sync_event_view view = { 0 };
	struct sync_input *in;
	int host;

	if (head_input_and_host(it, f, &in, &host)) {
		return -1;
	}
	if (r->item == DS_PAIR_ITEM_HTTP && it->comp->sync.match[SYNC_PAIR_HTTP] &&
			(r->http.role < SYNC_HTTP_CLIENT_REQUEST || r->http.role > SYNC_HTTP_CLIENT_RESPONSE)) {
		return fail_at(it, f, "an HTTP record of no known role");
	}
	view.tcp = r->item == DS_PAIR_ITEM_TCP;
	view.send = r->send;
	view.key = r->key;
	view.http_role = r->item == DS_PAIR_ITEM_HTTP ? (enum sync_http_role) r->http.role : SYNC_HTTP_NONE;
	view.http_port = r->http.port;
	view.http_local_port = r->http.local_port;
	view.span = r->item == DS_PAIR_ITEM_SPAN;
	view.span_event = (struct ds_span_event) {
		.kind = (enum ds_span_event_kind) r->span.kind, .schema = (enum ds_span_schema) r->span.schema,
		.trace_id_high = r->span.trace_id_high, .trace_id_low = r->span.trace_id_low,
		.span_id = r->span.span_id, .parent_span_id = r->span.parent_span_id, .span_kind = r->span.span_kind,
	};
	sync_pass1_sweep(&it->sync, r->ns);
	sync_pass1_timed(&it->sync, in, host, r->ns);
	sync_pass1_event(&it->sync, &view, host, r->ns);
	return 0;
}

/* Every file's inputs, in (file, port) order, become the iterator's (their reorder windows are reported). */
static void gather_inputs(struct fit_iter *it)
{
	unsigned int i, n = 0;
	guint p;

	for (i = 0; i < it->file_count; i++) {
		n += it->files[i].inputs->len;
	}
	it->sync.inputs = g_new0(struct sync_input, n ? n : 1);
	for (i = 0; i < it->file_count; i++) {
		GPtrArray *inputs = it->files[i].inputs;

		for (p = 0; p < inputs->len; p++) {
			struct sync_input *in = g_ptr_array_index(inputs, p);

			if (in) {
				it->sync.inputs[it->sync.input_count++] = *in;	/* its hosts_seen moves */
				g_free(in);
				g_ptr_array_index(inputs, p) = NULL;
			}
		}
	}
}

/* Opens every file, merges their records through pass 1, writes the report; -1 with the cause. */
static int fit(struct fit_iter *it)
{
	struct fit_file *f;
	unsigned int i;
	char why[512];

	for (i = 0; i < it->file_count; i++) {
		f = &it->files[i];
		if (ds_pair_reader_open(&f->reader, g_ptr_array_index(it->comp->records, i), why, sizeof(why)) !=
				DS_PAIR_READ_OK) {
			return fail(it, why);
		}
		if (advance(it, f)) {
			return -1;
		}
	}
	while ((f = first_file(it))) {
		if (take_head(it, f) || advance(it, f)) {
			return -1;
		}
	}
	gather_inputs(it);
	return sync_finish_pass1(&it->sync);
}

bt_message_iterator_class_next_method_status clock_fit_iterator_next(
		bt_self_message_iterator *self, bt_message_array_const msgs, uint64_t capacity,
		uint64_t *count)
{
	struct fit_iter *it = bt_self_message_iterator_get_data(self);

	(void) msgs;
	(void) capacity;
	*count = 0;
	if (it->done) {
		return BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
	}
	it->done = true;
	return fit(it) ? BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_ERROR :
		BT_MESSAGE_ITERATOR_CLASS_NEXT_METHOD_STATUS_END;
}
