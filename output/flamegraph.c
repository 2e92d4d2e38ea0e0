/*
 * flamegraph.c - the flame graph writer (-f flamegraph -o FILE.svg): the
 * stack maps as one self-contained, interactive SVG.
 *
 * Each map keyed by a stack (folded.c's rule) becomes a titled section of
 * the SVG, drawn as flamegraph.pl draws it: the root ("all") at the
 * bottom, each frame a box above its caller whose width is its share of
 * the map's total, siblings sorted alphabetically by name, identical
 * paths merged.  Frames are named by function (no "+offset": the samples
 * of one function are one box); the key parts that are not stacks (comm,
 * pid) are the frames under the stacks, grey; user frames are warm,
 * kernel frames blue.  Boxes narrower than 0.1 px are left out, as
 * flamegraph.pl's --minwidth.  The script inside (no network, nothing
 * external) gives each box a tooltip (<title>: name, value, percent),
 * zooms on a click (the box becomes the full width, its callers stay as
 * full-width bars, the rest hides; "Reset Zoom" or a click on the root
 * undoes it), and searches (the Search button, Ctrl-F, or ?s=REGEX in the
 * URL): matching boxes turn magenta and each section shows their share of
 * its total, nested matches counted once.  A map printed several times
 * (print(@m) and again at exit) is drawn as it was printed last.  Every
 * other map and every printf goes to the terminal as text.
 */
#include "output/out_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define FG_WIDTH 1200
#define FG_XPAD 10
#define FG_FRAME_H 16
#define FG_TITLE_H 54
#define FG_MIN_WIDTH 0.1
#define FG_STR_(x) #x
#define FG_STR(x) FG_STR_(x)	/* the layout's numbers, for the script */

struct node {
	char *name;
	enum pr_frame_kind kind;
	uint64_t value;
	struct node *kids;	/* kids[nkids], sorted by name at the end */
	int nkids, capkids;
};

struct graph {
	char *title;		/* the map's name */
	struct node root;
};

static struct graph *graphs;
static int ngraphs;

static void node_free(struct node *n)
{
	for (int i = 0; i < n->nkids; i++)
		node_free(&n->kids[i]);
	free(n->kids);
	free(n->name);
}

static struct node *child(struct node *n, const char *name, enum pr_frame_kind kind)
{
	for (int i = 0; i < n->nkids; i++)
		if (n->kids[i].kind == kind && !strcmp(n->kids[i].name, name))
			return &n->kids[i];
	if (n->nkids == n->capkids) {
		n->capkids = n->capkids ? n->capkids * 2 : 4;
		n->kids = pr_xrealloc(n->kids, (size_t)n->capkids * sizeof(*n->kids));
	}
	struct node *k = &n->kids[n->nkids++];
	*k = (struct node){.name = pr_xstrdup(name), .kind = kind};
	return k;
}

/* flamegraph.pl's order: it sorts the folded lines as byte strings, so a
 * name is compared as if ";" followed it ("a.b" before "a", "a" before "a_b") */
static int node_cmp(const void *x, const void *y)
{
	const unsigned char *a = (const unsigned char *)((const struct node *)x)->name;
	const unsigned char *b = (const unsigned char *)((const struct node *)y)->name;
	while (*a && *a == *b)
		a++, b++;
	int ca = *a ? *a : ';', cb = *b ? *b : ';';
	return ca - cb;
}

static void node_sort(struct node *n)
{
	if (n->nkids > 1)
		qsort(n->kids, (size_t)n->nkids, sizeof(*n->kids), node_cmp);
	for (int i = 0; i < n->nkids; i++)
		node_sort(&n->kids[i]);
}

static int node_depth(const struct node *n)
{
	int d = 0;
	for (int i = 0; i < n->nkids; i++) {
		int k = node_depth(&n->kids[i]) + 1;
		d = k > d ? k : d;
	}
	return d;
}

/* the graph of map `name`, emptied: a map printed again replaces its graph */
static struct graph *graph_for(const char *name)
{
	for (int i = 0; i < ngraphs; i++)
		if (!strcmp(graphs[i].title, name)) {
			node_free(&graphs[i].root);
			graphs[i].root = (struct node){.name = pr_xstrdup("all")};
			return &graphs[i];
		}
	graphs = pr_xrealloc(graphs, (size_t)(ngraphs + 1) * sizeof(*graphs));
	graphs[ngraphs] = (struct graph){.title = pr_xstrdup(name), .root = {.name = pr_xstrdup("all")}};
	return &graphs[ngraphs++];
}

static void fg_map(FILE *out, struct pr_map *m, uint32_t top, uint32_t div)
{
	if (!pr_is_stack_map(m)) {
		pr_text_map(out, m, top, div);
		return;
	}
	size_t first = pr_map_order(m, &top, &div);
	struct graph *g = graph_for(m->name ? m->name : "@");
	struct pr_path p = {0};
	for (size_t i = first; i < m->nentries; i++) {
		const struct pr_entry *e = &m->entries[i];
		/* a negative sum has no width */
		uint64_t v = m->is_unsigned ? (uint64_t)e->ival / div
			   : e->ival > 0 ? (uint64_t)(e->ival / (int64_t)div) : 0;
		if (!v || !pr_stack_path(e, true, &p))
			continue;
		struct node *n = &g->root;
		n->value += v;
		for (int f = 0; f < p.n; f++) {
			n = child(n, p.name[f], p.kind[f]);
			n->value += v;
		}
	}
	pr_path_free(&p);
}

/* a colour from the name, so a function keeps its colour across runs and
 * sections (flamegraph.pl's --hash) */
static void colour(FILE *out, const char *name, enum pr_frame_kind kind)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	for (const char *s = name; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	unsigned v1 = h % 1000, v2 = (h / 1000) % 1000;
	switch (kind) {
	case PF_USER:	/* flamegraph.pl's "hot" */
		fprintf(out, "rgb(%u,%u,%u)", 205 + 50 * v1 / 1000, 230 * v2 / 1000, 55 * v1 / 1000);
		break;
	case PF_KERNEL:
		fprintf(out, "rgb(%u,%u,%u)", 60 + 60 * v1 / 1000, 140 + 50 * v2 / 1000, 215 + 40 * v1 / 1000);
		break;
	case PF_KEY:
		fprintf(out, "rgb(%u,%u,%u)", 170 + 30 * v1 / 1000, 170 + 30 * v1 / 1000, 170 + 30 * v1 / 1000);
		break;
	}
}

/* one box and, above it, its callees (x in px from the left pad) */
static void draw(FILE *out, const struct node *n, uint64_t total, double x, int depth, int base_y,
		 int section)
{
	double full = FG_WIDTH - 2 * FG_XPAD;
	double w = (double)n->value * full / (double)total;
	if (w < FG_MIN_WIDTH)
		return;
	int y = base_y - (depth + 1) * FG_FRAME_H;
	static const char *const kinds[] = {[PF_KEY] = "key", [PF_USER] = "user", [PF_KERNEL] = "kernel"};
	fprintf(out, "<g class=\"f %s\" data-s=\"%d\" data-d=\"%d\" data-v=\"%" PRIu64 "\"><title>",
		depth ? kinds[n->kind] : "root", section, depth, n->value);
	pr_xml_text(out, n->name);
	fprintf(out, " (%" PRIu64 ", %.2f%%)</title><rect x=\"%.4f\" y=\"%d\" width=\"%.4f\" "
		"height=\"%d\" rx=\"2\" fill=\"", n->value, 100.0 * (double)n->value / (double)total,
		FG_XPAD + x, y, w, FG_FRAME_H - 1);
	if (depth)
		colour(out, n->name, n->kind);
	else
		fputs("rgb(230,130,70)", out);
	fprintf(out, "\"/><text x=\"%.4f\" y=\"%d\"></text><desc>", FG_XPAD + x + 3, y + FG_FRAME_H - 5);
	pr_xml_text(out, n->name);
	fputs("</desc></g>\n", out);
	double cx = x;
	for (int i = 0; i < n->nkids; i++) {
		draw(out, &n->kids[i], total, cx, depth + 1, base_y, section);
		cx += (double)n->kids[i].value * full / (double)total;
	}
}

/* the interactive part: text fitting, tooltip details, zoom, search */
static const char fg_script[] =
	"var fontw = 7.2, xpad = " FG_STR(FG_XPAD) ", full = " FG_STR(FG_WIDTH - 2 * FG_XPAD) ";\n"
	"function frames(s) { return document.querySelectorAll('g.f' + (s === undefined ? '' : '[data-s=\"' + s + '\"]')); }\n"
	"function fit(g) {\n"
	"  var r = g.querySelector('rect'), t = g.querySelector('text'), name = g.querySelector('desc').textContent;\n"
	"  var w = +r.getAttribute('width'), n = Math.floor((w - 6) / fontw);\n"
	"  t.setAttribute('x', +r.getAttribute('x') + 3);\n"
	"  t.textContent = n < 3 ? '' : name.length <= n ? name : name.substring(0, n - 2) + '..';\n"
	"}\n"
	"function init() {\n"
	"  frames().forEach(function (g) {\n"
	"    var r = g.querySelector('rect');\n"
	"    g.dataset.x = r.getAttribute('x'); g.dataset.w = r.getAttribute('width');\n"
	"    fit(g);\n"
	"    g.addEventListener('click', function () { zoom(g); });\n"
	"    g.addEventListener('mouseover', function () { details(g.querySelector('title').textContent); });\n"
	"    g.addEventListener('mouseout', function () { details(' '); });\n"
	"  });\n"
	"  var m = /[?&]s=([^&]*)/.exec(location.search);\n"
	"  if (m) search(decodeURIComponent(m[1]));\n"
	"}\n"
	"function details(s) { document.getElementById('details').textContent = s; }\n"
	"function zoom(g) {\n"
	"  var s = g.dataset.s, d = +g.dataset.d, x0 = +g.dataset.x, w0 = +g.dataset.w, k = full / w0;\n"
	"  frames(s).forEach(function (e) {\n"
	"    var r = e.querySelector('rect'), x = +e.dataset.x, w = +e.dataset.w, ed = +e.dataset.d;\n"
	/* x and width are written to 4 decimals: a callee's end may pass
	 * its caller's by the rounding, never by a box (0.1 px at least) */
	"    var inside = x >= x0 - 0.01 && x + w <= x0 + w0 + 0.01;\n"
	"    var under = ed < d && x <= x0 + 0.01 && x + w >= x0 + w0 - 0.01;\n"
	"    e.classList.remove('hide', 'parent');\n"
	"    if (ed >= d && inside) { r.setAttribute('x', xpad + (x - x0) * k); r.setAttribute('width', w * k); }\n"
	"    else if (under) { r.setAttribute('x', xpad); r.setAttribute('width', full); e.classList.add('parent'); }\n"
	"    else e.classList.add('hide');\n"
	"    fit(e);\n"
	"  });\n"
	"  document.getElementById('unzoom' + s).classList.remove('hide');\n"
	"}\n"
	"function unzoom(s) {\n"
	"  frames(s).forEach(function (e) {\n"
	"    var r = e.querySelector('rect');\n"
	"    r.setAttribute('x', e.dataset.x); r.setAttribute('width', e.dataset.w);\n"
	"    e.classList.remove('hide', 'parent'); fit(e);\n"
	"  });\n"
	"  document.getElementById('unzoom' + s).classList.add('hide');\n"
	"}\n"
	"function search(term) {\n"
	"  var re = null;\n"
	"  if (term) { try { re = new RegExp(term); } catch (err) { re = null; } }\n"
	"  var spans = {};\n"
	"  frames().forEach(function (e) {\n"
	"    var r = e.querySelector('rect');\n"
	"    if (!e.dataset.fill) e.dataset.fill = r.getAttribute('fill');\n"
	"    var hit = re && e.dataset.d > 0 && re.test(e.querySelector('desc').textContent);\n"
	"    r.setAttribute('fill', hit ? 'rgb(230,0,230)' : e.dataset.fill);\n"
	"    e.classList.toggle('match', !!hit);\n"
	"    if (hit) (spans[e.dataset.s] = spans[e.dataset.s] || []).push([+e.dataset.x, +e.dataset.x + +e.dataset.w]);\n"
	"  });\n"
	"  document.querySelectorAll('text.matched').forEach(function (t) {\n"
	"    var v = spans[t.dataset.s] || [], sum = 0, end = -1;\n"
	"    v.sort(function (a, b) { return a[0] - b[0]; });\n"
	"    v.forEach(function (p) { if (p[0] >= end) { sum += p[1] - p[0]; end = p[1]; } else if (p[1] > end) { sum += p[1] - end; end = p[1]; } });\n"
	"    t.textContent = re ? 'Matched: ' + (100 * sum / full).toFixed(2) + '%' : '';\n"
	"  });\n"
	"  document.getElementById('search').classList.toggle('active', !!re);\n"
	"  return re ? Object.keys(spans).length : 0;\n"
	"}\n"
	"function ask() {\n"
	"  var t = prompt('Search for (regular expression):', '');\n"
	"  if (t !== null) search(t);\n"
	"}\n"
	"window.addEventListener('keydown', function (e) {\n"
	"  if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); ask(); }\n"
	"  if (e.key === 'Escape') search('');\n"
	"});\n"
	"window.addEventListener('load', init);\n";

static void fg_finish(FILE *out)
{
	int height = 40;	/* the details line at the bottom */
	for (int i = 0; i < ngraphs; i++) {
		node_sort(&graphs[i].root);
		height += FG_TITLE_H + (node_depth(&graphs[i].root) + 1) * FG_FRAME_H + 10;
	}
	if (!ngraphs)
		height += FG_TITLE_H;
	fprintf(out, "<?xml version=\"1.0\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\">\n"
		"<style>text { font-family: Verdana, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
		"g.f text { pointer-events: none; } g.f:hover rect { stroke: black; stroke-width: 0.5; }\n"
		".title { font-size: 17px; text-anchor: middle; } .button { cursor: pointer; }\n"
		".button:hover { text-decoration: underline; } .hide { display: none; }\n"
		"g.parent rect { opacity: 0.5; } #search.active { fill: rgb(230,0,230); }\n"
		".legend { font-size: 11px; }</style>\n"
		"<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"rgb(248,248,238)\"/>\n",
		FG_WIDTH, height, FG_WIDTH, height, fg_script, FG_WIDTH, height);
	fprintf(out, "<text id=\"search\" class=\"button\" x=\"%d\" y=\"24\" text-anchor=\"end\" "
		"onclick=\"ask()\">Search</text>\n", FG_WIDTH - FG_XPAD);
	fprintf(out, "<text class=\"legend\" x=\"%d\" y=\"24\"><tspan fill=\"rgb(230,120,30)\">&#9632;</tspan> user "
		"<tspan fill=\"rgb(90,160,235)\">&#9632;</tspan> kernel "
		"<tspan fill=\"rgb(185,185,185)\">&#9632;</tspan> key</text>\n", FG_XPAD);
	int y = 0;
	for (int i = 0; i < ngraphs; i++) {
		const struct graph *g = &graphs[i];
		int depth = node_depth(&g->root) + 1;
		fprintf(out, "<g class=\"section\" data-s=\"%d\">\n<text class=\"title\" x=\"%d\" y=\"%d\">",
			i, FG_WIDTH / 2, y + 44);
		pr_xml_text(out, g->title);
		fprintf(out, "</text>\n<text id=\"unzoom%d\" class=\"button hide\" x=\"%d\" y=\"%d\" "
			"onclick=\"unzoom(%d)\">Reset Zoom</text>\n", i, FG_XPAD, y + 44, i);
		fprintf(out, "<text class=\"matched\" data-s=\"%d\" x=\"%d\" y=\"%d\" text-anchor=\"end\">"
			"</text>\n", i, FG_WIDTH - FG_XPAD, y + 44);
		int base = y + FG_TITLE_H + depth * FG_FRAME_H;
		if (g->root.value)
			draw(out, &g->root, g->root.value, 0, 0, base, i);
		fputs("</g>\n", out);
		y = base + 10;
	}
	if (!ngraphs)
		fprintf(out, "<text class=\"title\" x=\"%d\" y=\"44\">No map keyed by a stack "
			"(kstack or ustack) was printed</text>\n", FG_WIDTH / 2);
	fprintf(out, "<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n</svg>\n", FG_XPAD, height - 14);
	for (int i = 0; i < ngraphs; i++) {
		node_free(&graphs[i].root);
		free(graphs[i].title);
	}
	free(graphs);
	graphs = NULL;
	ngraphs = 0;
}

const struct output_writer output_flamegraph = {
	.name = "flamegraph",
	.render = PR_RENDER_TEXT,
	.stacks = true,
	.picture = true,
	PR_TEXT_EVENTS,
	.maps_begin = pr_nothing_before_maps,
	.map = fg_map,
	.finish = fg_finish,
};
