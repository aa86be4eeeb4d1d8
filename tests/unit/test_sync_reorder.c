/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the sync reorder buffer (plugins/sync-filter/reorder.c):
 * release order must equal a sort on (key, arrival), whatever the lanes.
 */
#include <stdlib.h>

#include "unit.h"
#include "sync-filter/reorder.h"

struct rec {
	int64_t key;
	uint64_t seq;
};

static int compare_recs(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;

	if (x->key != y->key) {
		return x->key < y->key ? -1 : 1;
	}
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The reference: the smallest (key, seq) of a plain array, by linear scan; -1 if empty. */
static int reference_min(const struct rec *held, unsigned int n)
{
	int best = -1;
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (best < 0 || compare_recs(&held[i], &held[best]) < 0) {
			best = (int) i;
		}
	}
	return best;
}

/*
 * `hosts` interleaved runs, each non-decreasing with its own offset, plus
 * late keys and untimed (INT64_MIN) ones; items are released while pushing
 * whenever the head is `lag` behind the newest key (like the filter's release
 * bound).  The release sequence must equal that of a linear-scan reference.
 * With `hinted`, each host pushes with its own lane hint (ds_reorder_push_hinted), and one push in 31 with a
 * hint of a random lane, or out of range: which lane an item goes to must not change the order.
 */
static void check_interleaved(unsigned int hosts, unsigned int n, int64_t lag, unsigned int seed, bool hinted)
{
	struct ds_reorder r;
	struct rec *pushed = g_new(struct rec, n), *ref = g_new(struct rec, n);
	int64_t *clock = g_new0(int64_t, hosts), newest = INT64_MIN;
	guint *hints = g_new0(guint, hosts);
	unsigned int i, ref_len = 0, released = 0, same = 1;
	char what[128];

	srand(seed);
	ds_reorder_init(&r);
	for (i = 0; i <= n; i++) {
		const struct ds_reorder_item *head;
		int m;

		if (i < n) {
			unsigned int h = (unsigned int) rand() % hosts;
			int64_t key;

			clock[h] += rand() % 100;
			key = clock[h] + (int64_t) h * 1000;
			if (rand() % 50 == 0) {
				key -= rand() % 500;	/* a late one */
			}
			if (i % 97 == 0) {
				key = INT64_MIN;	/* untimed, e.g. a stream beginning */
			}
			pushed[i].key = key;
			pushed[i].seq = i;
			if (!hinted) {
				ds_reorder_push(&r, key, &pushed[i]);
			} else if (rand() % 31 == 0) {
				guint wrong = (guint) rand() % (ds_reorder_lane_count(&r) + 2);

				ds_reorder_push_hinted(&r, key, &pushed[i], &wrong);
			} else {
				ds_reorder_push_hinted(&r, key, &pushed[i], &hints[h]);
			}
			ref[ref_len++] = pushed[i];
			newest = key > newest ? key : newest;
		} else {
			newest = INT64_MAX;	/* the end: release everything */
			lag = 0;
		}
		while ((head = ds_reorder_peek(&r)) && newest >= INT64_MIN + lag &&
				head->key <= newest - lag) {
			const struct rec *got = ds_reorder_pop(&r).data;

			m = reference_min(ref, ref_len);
			same &= m >= 0 && got->key == ref[m].key && got->seq == ref[m].seq;
			if (m >= 0) {
				ref[m] = ref[--ref_len];
			}
			released++;
		}
	}
	snprintf(what, sizeof(what), "%u hosts, seed %u%s: every item released once", hosts, seed,
		hinted ? ", lane hints" : "");
	UNIT_EQ_UINT(released, n, what);
	snprintf(what, sizeof(what), "%u hosts, seed %u%s: release order = smallest (key, arrival) "
		"first, as a heap", hosts, seed, hinted ? ", lane hints" : "");
	UNIT_CHECK(same && ref_len == 0, what);
	ds_reorder_fini(&r);
	g_free(pushed);
	g_free(ref);
	g_free(clock);
	g_free(hints);
}

int main(void)
{
	struct ds_reorder r;
	const struct ds_reorder_item *head;
	int a = 1, b = 2, c = 3, d = 4;
	unsigned int hosts;

	ds_reorder_init(&r);
	UNIT_CHECK(ds_reorder_peek(&r) == NULL, "empty buffer has no head");
	ds_reorder_push(&r, 10, &a);
	ds_reorder_push(&r, 5, &b);
	ds_reorder_push(&r, 10, &c);
	ds_reorder_push(&r, 7, &d);
	UNIT_EQ_UINT(r.len, 4, "four items held");
	UNIT_EQ_UINT(ds_reorder_lane_count(&r), 2, "two sorted lanes for 10,5,10,7");
	head = ds_reorder_peek(&r);
	UNIT_CHECK(head && head->data == &b, "head is the smallest key");
	UNIT_CHECK(ds_reorder_pop(&r).data == &b, "pop 5");
	UNIT_CHECK(ds_reorder_pop(&r).data == &d, "pop 7");
	UNIT_CHECK(ds_reorder_pop(&r).data == &a, "pop the first 10 (arrival order on ties)");
	UNIT_CHECK(ds_reorder_pop(&r).data == &c, "pop the second 10");
	UNIT_EQ_UINT(r.len, 0, "empty again");
	ds_reorder_push(&r, 1, &a);
	UNIT_EQ_UINT(ds_reorder_lane_count(&r), 2, "empty lanes are reused");
	ds_reorder_fini(&r);

	for (hosts = 1; hosts <= 5; hosts++) {
		check_interleaved(hosts, 5000, INT64_MAX / 2, hosts, false);
		check_interleaved(hosts, 5000, 3000, 100 + hosts, false);
		check_interleaved(hosts, 5000, INT64_MAX / 2, 200 + hosts, true);
		check_interleaved(hosts, 5000, 3000, 300 + hosts, true);
	}
	return unit_finish();
}
