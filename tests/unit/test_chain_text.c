/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of plugins/span-attrib-filter/chain-text.c: ds_chain_text_format() writes the bytes snprintf
 * writes (the chain details of doc/critical-path.md must not change by one byte), for every format the walk
 * uses, with chosen and random arguments, at every buffer size (truncation), and hands other conversions
 * to vsnprintf; ds_chain_text_copy() writes g_strlcpy's bytes.
 */
#include "unit.h"
#include "span-attrib-filter/chain.h"

#include <stdlib.h>

#define SIZE 200

static unsigned int mismatches;

static void check_s(const char *fmt, const char *a, const char *b, const char *c, const char *d)
{
	char want[SIZE], got[SIZE];
	size_t size;

	for (size = 1; size <= SIZE; size++) {
		memset(want, 'x', sizeof(want));
		memset(got, 'x', sizeof(got));
		snprintf(want, size, fmt, a, b, c, d);
		ds_chain_text_format(got, size, fmt, a, b, c, d);
		if (memcmp(want, got, sizeof(want)) != 0) {
			if (mismatches++ < 5) {
				printf("#   format \"%s\", size %zu: got \"%s\", expected \"%s\"\n", fmt, size, got, want);
			}
		}
	}
}

static void check_sl(const char *fmt, const char *a, const char *b, const char *c, int64_t v)
{
	char want[SIZE], got[SIZE];
	size_t size;

	for (size = 1; size <= SIZE; size++) {
		memset(want, 'x', sizeof(want));
		memset(got, 'x', sizeof(got));
		snprintf(want, size, fmt, a, b, c, v);
		ds_chain_text_format(got, size, fmt, a, b, c, v);
		if (memcmp(want, got, sizeof(want)) != 0 && mismatches++ < 5) {
			printf("#   format \"%s\", size %zu: got \"%s\", expected \"%s\"\n", fmt, size, got, want);
		}
	}
}

static void check_numbers(const char *fmt, uint64_t u, uint32_t w, int64_t v)
{
	char want[SIZE], got[SIZE];
	size_t size;

	for (size = 1; size <= 64; size++) {
		memset(want, 'x', sizeof(want));
		memset(got, 'x', sizeof(got));
		snprintf(want, size, fmt, "sc", u, w, v);
		ds_chain_text_format(got, size, fmt, "sc", u, w, v);
		if (memcmp(want, got, sizeof(want)) != 0 && mismatches++ < 5) {
			printf("#   format \"%s\", size %zu: got \"%s\", expected \"%s\"\n", fmt, size, got, want);
		}
	}
}

static void random_text(char *buf, size_t max)
{
	size_t n = (size_t) rand() % max, i;

	for (i = 0; i < n; i++) {
		buf[i] = (char) (1 + rand() % 255);	/* any byte but NUL (UTF-8 arrows included) */
	}
	buf[n] = '\0';
}

int main(void)
{
	static const char *const formats_s[] = {
		"%s", "deadlock: %s", "unknown: still blocked at end of trace in %s", "%s \u2190 timer",
		"%s \u2190 irq:%s", "%s \u2190 softirq:%s", "unknown: %s", "%s \u2190 softirq:NET_RX (no matching send)",
		"unknown: %s \u2190 softirq:NET_RX, no network events recorded on %s",
		"unknown: sent from %s:%s on %s, no thread", "unknown: no thread current at the send on %s",
		"retransmission wait: segment %s \u2192 %s", "segment %s \u2192 %s%s%s", "%s \u2190 %s/%s:%s",
		"after completion: irq:%s", "%s%%s%s", "100%% %s",
	};
	static const char *const names[] = {
		"", "-", "recvfrom", "futex", "frontend", "mysqld", "softirq", "NET_RX", " (retransmitted)",
		"a-host-name-long-enough-to-be-truncated-somewhere-in-the-middle-of-a-detail-of-160-bytes-yes",
	};
	char r[4][120], want[SIZE], got[SIZE];
	unsigned int f, i, j, k;

	for (f = 0; f < G_N_ELEMENTS(formats_s); f++) {
		for (i = 0; i < G_N_ELEMENTS(names); i++) {
			for (j = 0; j < G_N_ELEMENTS(names); j++) {
				check_s(formats_s[f], names[i], names[j], names[(i + j) % G_N_ELEMENTS(names)],
					names[(i * 7 + j) % G_N_ELEMENTS(names)]);
			}
		}
	}
	UNIT_EQ_UINT(mismatches, 0, "%s formats of the walk: snprintf's bytes at every buffer size");
	srand(12);
	for (k = 0; k < 3000; k++) {
		for (i = 0; i < 4; i++) {
			random_text(r[i], sizeof(r[i]));
		}
		check_s(formats_s[k % G_N_ELEMENTS(formats_s)], r[0], r[1], r[2], r[3]);
		check_sl("%s \u2190 %s/%s/%" PRId64, r[0], r[1], r[2], (int64_t) rand() - RAND_MAX / 2);
	}
	UNIT_EQ_UINT(mismatches, 0, "random strings and tids: snprintf's bytes at every buffer size");
	check_sl("%s \u2190 %s/%s/%" PRId64, "recvfrom", "beta", "frontend", INT64_MIN);
	check_sl("%s \u2190 %s/%s/%" PRId64, "recvfrom", "beta", "frontend", INT64_MAX);
	check_sl("%s \u2190 %s/%s/%" PRId64, "recvfrom", "beta", "frontend", 0);
	check_sl("%s \u2190 %s/%s/%" PRId64, "recvfrom", "beta", "frontend", -1);
	check_numbers("%s \u2190 disk dev %" PRIu64 " of %" PRIu32 " at %" PRId64, 0, 0, 0);
	check_numbers("%s \u2190 disk dev %" PRIu64 " of %" PRIu32 " at %" PRId64, UINT64_MAX, UINT32_MAX, INT64_MIN);
	check_numbers("%s \u2190 disk dev %" PRIu64 " of %" PRIu32 " at %" PRId64, 259, 412, -31);
	UNIT_EQ_UINT(mismatches, 0, "integers (PRId64, PRIu64, PRIu32) at their limits");
	/* a conversion it does not write itself goes to vsnprintf */
	ds_chain_text_format(got, sizeof(got), "%.3s|%5d|%x", "abcdef", 42, 255u);
	snprintf(want, sizeof(want), "%.3s|%5d|%x", "abcdef", 42, 255u);
	UNIT_CHECK(strcmp(got, want) == 0, "other conversions: vsnprintf");
	mismatches = 0;
	for (k = 0; k < 2000; k++) {
		size_t size = 1 + (size_t) rand() % 40;

		random_text(r[0], sizeof(r[0]) / 2);
		memset(want, 'x', sizeof(want));
		memset(got, 'x', sizeof(got));
		g_strlcpy(want, r[0], size);
		ds_chain_text_copy(got, r[0], size);
		mismatches += memcmp(want, got, sizeof(want)) != 0;
	}
	UNIT_EQ_UINT(mismatches, 0, "ds_chain_text_copy: g_strlcpy's bytes at every size");
	ds_chain_text_format(got, sizeof(got), "%s", (const char *) NULL);
	UNIT_CHECK(strcmp(got, "(null)") == 0, "a NULL string is written as glibc writes it");
	return unit_finish();
}
