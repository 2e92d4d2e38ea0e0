/*
 * labels.c - a map entry's key elements as metric labels, for the scrape
 * writers (maps.c names them while it reads a map for scrape.c): sema
 * chose the names from the key expressions.  A `container` key element
 * becomes the labels namespace, pod and container (the container's name)
 * plus container_id when its cgroup is a Kubernetes pod's (host/kube.c
 * reads the pod from the cgroup path and the names from the kubelet's log
 * tree), and container (the id) otherwise.
 */
#include "runtime/rt_int.h"

#include <string.h>

static void push(struct rt *rt, struct pr_label **v, int *n, const char *name, const char *value)
{
	struct pr_label *nv = arena_new_array(rt->a, struct pr_label, (size_t)*n + 1);
	if (*n)
		memcpy(nv, *v, (size_t)*n * sizeof(*nv));
	nv[*n] = (struct pr_label){name, value};
	*v = nv;
	(*n)++;
}

/* a container key element: Kubernetes names when the cgroup is a pod's */
static void container_labels(struct rt *rt, const char *name, const char *short_id, uint64_t cgid,
			     struct pr_label **v, int *n)
{
	struct rs_cgcache *c = rt_cgroups(rt);
	const char *path = c ? rs_cgroup_path(c, cgid) : NULL;
	char uid[37], cid[65];
	struct kube_names kn;
	if (path && !kube_parse_cgroup(path, uid, cid)) {
		if (!rt->metrics.kube)
			rt->metrics.kube = kube_index_new(rt->o->kube_logs);
		if (rt->metrics.kube && kube_lookup(rt->metrics.kube, uid, cid, &kn)) {
			push(rt, v, n, "namespace", kn.namespace_);
			push(rt, v, n, "pod", kn.pod);
			push(rt, v, n, name, *kn.container ? kn.container : short_id);
			push(rt, v, n, arena_printf(rt->a, "%s_id", name), short_id);
			return;
		}
	}
	push(rt, v, n, name, short_id);
}

void rt_cgroup_labels(struct rt *rt, uint64_t cgid, struct pr_label **v, int *n)
{
	struct rs_cgcache *c = rt_cgroups(rt);
	container_labels(rt, "container", c ? rs_cgroup_container(c, cgid) : "", cgid, v, n);
}

void rt_scrape_labels(struct rt *rt, const struct sema_map *m, const uint8_t *key, struct pr_entry *e)
{
	struct pr_label *v = NULL;
	int n = 0;
	for (int i = 0; i < e->nkey && m->labels; i++) {
		bool several = m->key.kind == TY_TUPLE && !type_is_record(&m->key);
		const struct type *t = several ? &m->key.fields[i].type : &m->key;
		const uint8_t *p = several ? key + m->key.fields[i].offset : key;
		if (t->kind == TY_CONTAINER) {
			uint64_t cgid;
			memcpy(&cgid, p, 8);
			container_labels(rt, m->labels[i], e->key[i].text, cgid, &v, &n);
		} else {
			push(rt, &v, &n, m->labels[i], e->key[i].text);
		}
	}
	e->labels = v;
	e->nlabels = n;
}

