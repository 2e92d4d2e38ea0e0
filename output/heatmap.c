/*
 * heatmap.c - the latency heatmap writer (-f heatmap -o FILE.html): every
 * print of a hist() or lhist() map as one column of a heatmap, written at
 * exit as one self-contained HTML page (inline SVG, CSS and script; no
 * network).
 *
 * The usual pattern prints a histogram on an interval and clears it
 * (`interval:s:1 { print(@lat); clear(@lat); }`, runqlat, biolatency): each
 * print is a column at the wall-clock time it was printed (x), each bucket
 * a row (y, the smallest at the bottom), the count its colour (white to
 * dark red, against the largest count of that heatmap).  A keyed map gets
 * one heatmap per key, in the order keys first appeared; a key missing
 * from a print is an empty column.  Rows span the buckets that were ever
 * non-zero, labelled as the text output labels them ("[4K, 8K)"); hovering
 * a cell shows its time, bucket and count.  The run's text output still
 * goes to the terminal, every map and printf as -f text prints them.
 * The print at exit is a column too (what the last interval gathered).
 */
#include "output/out_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define HM_CELL_H 14
#define HM_LABEL_W 130
#define HM_PLOT_W 960

struct series {
	char *key;		/* "" for a map without keys */
	uint64_t *counts;	/* [ncols][nbuckets] */
};

struct hmap {
	char *name;
	bool lhist;
	int64_t min, max, step;
	int bits;		/* hist(v, k)'s k */
	int nbuckets;
	struct timespec *times;	/* [ncols] */
	int ncols;
	struct series *series;
	int nseries;
};

static struct hmap *maps;
static int nmaps;

static struct hmap *hmap_for(const struct pr_map *m, int nbuckets)
{
	const char *name = m->name ? m->name : "@";
	for (int i = 0; i < nmaps; i++)
		if (!strcmp(maps[i].name, name))
			return &maps[i];
	maps = pr_xrealloc(maps, (size_t)(nmaps + 1) * sizeof(*maps));
	maps[nmaps] = (struct hmap){
		.name = pr_xstrdup(name), .lhist = m->kind == PR_LHIST, .min = m->lh_min,
		.max = m->lh_max, .step = m->lh_step, .bits = m->hist_bits, .nbuckets = nbuckets,
	};
	return &maps[nmaps++];
}

/* "[comm, 12]"-style key text, "" without keys */
static char *key_text(const struct pr_entry *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		abort();
	for (int i = 0; i < pr_entry_nkey(e); i++)
		fprintf(f, "%s%s", i ? ", " : "", e->key[i].text ? e->key[i].text : "");
	fclose(f);
	return buf;
}

static struct series *series_for(struct hmap *h, const char *key)
{
	for (int i = 0; i < h->nseries; i++)
		if (!strcmp(h->series[i].key, key))
			return &h->series[i];
	h->series = pr_xrealloc(h->series, (size_t)(h->nseries + 1) * sizeof(*h->series));
	struct series *s = &h->series[h->nseries++];
	s->key = pr_xstrdup(key);
	s->counts = calloc((size_t)h->ncols * (size_t)h->nbuckets + 1, sizeof(uint64_t));
	if (!s->counts)
		abort();
	return s;
}

static void hm_map(FILE *out, struct pr_map *m, uint32_t top, uint32_t div)
{
	pr_text_map(out, m, top, div);	/* the terminal gets the text, as -f text */
	if (m->kind != PR_HIST && m->kind != PR_LHIST)
		return;
	int nb = m->kind == PR_HIST ? pr_hist_nbuckets(m->hist_bits)
				    : (int)((m->lh_max - m->lh_min) / (m->lh_step ? m->lh_step : 1)) + 2;
	struct hmap *h = hmap_for(m, nb);
	int col = h->ncols++;
	h->times = pr_xrealloc(h->times, (size_t)h->ncols * sizeof(*h->times));
	clock_gettime(CLOCK_REALTIME, &h->times[col]);
	for (int i = 0; i < h->nseries; i++) {	/* one more column for every series */
		struct series *s = &h->series[i];
		s->counts = pr_xrealloc(s->counts, (size_t)h->ncols * (size_t)nb * sizeof(uint64_t));
		memset(s->counts + (size_t)col * (size_t)nb, 0, (size_t)nb * sizeof(uint64_t));
	}
	for (size_t i = 0; i < m->nentries; i++) {
		const struct pr_entry *e = &m->entries[i];
		char *k = key_text(e);
		struct series *s = series_for(h, k);
		free(k);
		for (int b = 0; b < e->nbuckets && b < nb && e->buckets; b++)
			s->counts[(size_t)col * (size_t)nb + (size_t)b] += e->buckets[b];
	}
}

static void bucket_label(const struct hmap *h, int b, char *buf, size_t len)
{
	if (h->lhist)
		pr_lhist_label(buf, len, b, h->nbuckets, h->min, h->max, h->step);
	else
		pr_hist_label(buf, len, b, h->bits);
}

/* white for 0, then pale yellow to dark red as the count nears the largest */
static void cell_colour(FILE *out, uint64_t c, uint64_t max)
{
	if (!c) {
		fputs("rgb(250,250,250)", out);
		return;
	}
	double f = max > 1 ? (double)(c - 1) / (double)(max - 1) : 1;
	int r = (int)(255 - 95 * f), g = (int)(235 - 235 * f), b = (int)(140 - 140 * f);
	fprintf(out, "rgb(%d,%d,%d)", r, g, b);
}

static void heatmap(FILE *out, const struct hmap *h, const struct series *s, int id)
{
	int nb = h->nbuckets, lo = nb, hi = -1;
	uint64_t max = 0;
	for (int c = 0; c < h->ncols; c++)
		for (int b = 0; b < nb; b++) {
			uint64_t v = s->counts[(size_t)c * (size_t)nb + (size_t)b];
			if (!v)
				continue;
			lo = b < lo ? b : lo;
			hi = b > hi ? b : hi;
			max = v > max ? v : max;
		}
	fputs("<h2>", out);
	pr_xml_text(out, h->name);
	if (*s->key) {
		fputc('[', out);
		pr_xml_text(out, s->key);
		fputc(']', out);
	}
	fputs("</h2>\n", out);
	if (hi < 0) {
		fputs("<p>No values.</p>\n", out);
		return;
	}
	int rows = hi - lo + 1;
	double cw = (double)HM_PLOT_W / h->ncols;
	if (cw > 40)
		cw = 40;
	int w = HM_LABEL_W + (int)(cw * h->ncols) + 20, ht = rows * HM_CELL_H + 40;
	fprintf(out, "<svg class=\"heatmap\" id=\"hm%d\" width=\"%d\" height=\"%d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n", id, w, ht);
	char label[96];
	for (int b = lo; b <= hi; b++) {
		int y = (hi - b) * HM_CELL_H;
		bucket_label(h, b, label, sizeof(label));
		fprintf(out, "<text class=\"bucket\" x=\"%d\" y=\"%d\">", HM_LABEL_W - 6, y + HM_CELL_H - 3);
		pr_xml_text(out, label);
		fputs("</text>\n", out);
	}
	for (int c = 0; c < h->ncols; c++) {
		char when[32];
		struct tm tm;
		localtime_r(&h->times[c].tv_sec, &tm);
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
		snprintf(when + strlen(when), sizeof(when) - strlen(when), ".%03ld", h->times[c].tv_nsec / 1000000);
		double x = HM_LABEL_W + c * cw;
		for (int b = lo; b <= hi; b++) {
			uint64_t v = s->counts[(size_t)c * (size_t)nb + (size_t)b];
			bucket_label(h, b, label, sizeof(label));
			fprintf(out, "<rect class=\"cell\" x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" "
				"data-t=\"%s\" data-b=\"", x, (hi - b) * HM_CELL_H, cw, HM_CELL_H, when);
			pr_xml_text(out, label);
			fprintf(out, "\" data-c=\"%" PRIu64 "\" fill=\"", v);
			cell_colour(out, v, max);
			fprintf(out, "\"><title>%s ", when);
			pr_xml_text(out, label);
			fprintf(out, ": %" PRIu64 "</title></rect>\n", v);
		}
		/* a time label every ~80 px */
		int every = (int)(80 / cw) + 1;
		if (c % every == 0)
			fprintf(out, "<text class=\"time\" x=\"%.2f\" y=\"%d\">%s</text>\n", x,
				rows * HM_CELL_H + 16, when);
	}
	fprintf(out, "<text class=\"scale\" x=\"%d\" y=\"%d\">largest cell: %" PRIu64 "</text>\n"
		"</svg>\n", HM_LABEL_W, rows * HM_CELL_H + 34, max);
}

static const char hm_head[] =
	"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n"
	"<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	"style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
	"<title>sonde heatmap</title>\n<style>\n"
	"body { font-family: Verdana, sans-serif; font-size: 13px; margin: 16px; background: #fff; }\n"
	"h2 { font-size: 15px; margin: 18px 0 6px 0; font-family: monospace; }\n"
	"svg text { font-family: monospace; font-size: 11px; }\n"
	"text.bucket { text-anchor: end; } rect.cell:hover { stroke: black; stroke-width: 1; }\n"
	"#details { position: fixed; top: 8px; right: 16px; background: #ffd; border: 1px solid #aa8;"
	" padding: 4px 8px; font-family: monospace; min-width: 20em; }\n"
	"</style></head><body>\n<div id=\"details\">hover a cell</div>\n";

static const char hm_script[] =
	"<script>\n"
	"document.querySelectorAll('rect.cell').forEach(function (r) {\n"
	"  r.addEventListener('mouseover', function () {\n"
	"    document.getElementById('details').textContent =\n"
	"      r.dataset.t + '  ' + r.dataset.b + '  count ' + r.dataset.c;\n"
	"  });\n"
	"});\n"
	"</script>\n";

static void hm_finish(FILE *out)
{
	fputs(hm_head, out);
	fputs("<h1 style=\"font-size:17px\">Latency heatmaps</h1>\n<p>x: the time of each print, "
	      "y: the bucket, colour: the count (hover a cell for its figures).</p>\n", out);
	int id = 0;
	for (int i = 0; i < nmaps; i++)
		for (int j = 0; j < maps[i].nseries; j++)
			heatmap(out, &maps[i], &maps[i].series[j], id++);
	if (!id)
		fputs("<p>No hist() or lhist() map was printed.</p>\n", out);
	fputs(hm_script, out);
	fputs("</body></html>\n", out);
	for (int i = 0; i < nmaps; i++) {
		for (int j = 0; j < maps[i].nseries; j++) {
			free(maps[i].series[j].key);
			free(maps[i].series[j].counts);
		}
		free(maps[i].series);
		free(maps[i].times);
		free(maps[i].name);
	}
	free(maps);
	maps = NULL;
	nmaps = 0;
}

const struct output_writer output_heatmap = {
	.name = "heatmap",
	.render = PR_RENDER_TEXT,
	.picture = true,
	PR_TEXT_EVENTS,
	.maps_begin = pr_text_maps_begin,
	.map = hm_map,
	.finish = hm_finish,
};
