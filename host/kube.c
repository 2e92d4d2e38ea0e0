/*
 * kube.c - namespace, pod and container of a cgroup on a Kubernetes node.
 *
 * The kubelet puts every pod in a cgroup named after its UID, in one of two
 * layouts depending on its cgroup driver:
 *   systemd:  /kubepods.slice/kubepods-burstable.slice/
 *             kubepods-burstable-pod1b2c..._..._....slice/cri-containerd-<id>.scope
 *             (the UID's dashes become underscores: '-' means nesting to systemd)
 *   cgroupfs: /kubepods/burstable/pod1b2c...-...-.../<id>
 * and the runtime names the container's cgroup after its id, directly under
 * the pod's (containerd, CRI-O and docker prefixes, or the bare id).
 * Names are not in cgroups.  They are in the kubelet's log tree, which every
 * node keeps: <logs>/pods/<namespace>_<pod>_<uid>/<container>/N.log, plus
 * the symlinks <logs>/containers/<pod>_<namespace>_<container>-<id>.log
 * that say which container id is which container.  Namespace, pod and
 * container names are DNS labels, so '_' never occurs inside them and the
 * splits below are unambiguous.  Nothing here needs the API server.
 */
#include "host/host.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* 8-4-4-4-12 lowercase hex with `sep` between the groups */
static bool is_uid(const char *s, size_t len, char sep)
{
	static const int groups[] = {8, 4, 4, 4, 12};
	if (len != 36)
		return false;
	for (int g = 0, i = 0; g < 5; g++) {
		for (int j = 0; j < groups[g]; j++, i++)
			if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
				return false;
		if (g < 4 && s[i++] != sep)
			return false;
	}
	return true;
}

/* the pod UID a cgroup directory name carries, dashed, or false */
static bool pod_uid_of(const char *name, size_t len, bool under_kubepods, char uid[37])
{
	/* systemd: kubepods-<qos>-pod<uid>.slice or kubepods-pod<uid>.slice */
	if (len > 6 + 36 && !strncmp(name, "kubepods", 8) && !strncmp(name + len - 6, ".slice", 6)) {
		const char *u = name + len - 6 - 36;
		if (u - name >= 3 && !strncmp(u - 3, "pod", 3) && is_uid(u, 36, '_')) {
			memcpy(uid, u, 36);
			uid[36] = '\0';
			for (char *p = uid; *p; p++)
				if (*p == '_')
					*p = '-';
			return true;
		}
	}
	/* cgroupfs: pod<uid> somewhere under kubepods */
	if (under_kubepods && len == 3 + 36 && !strncmp(name, "pod", 3) && is_uid(name + 3, 36, '-')) {
		memcpy(uid, name + 3, 36);
		uid[36] = '\0';
		return true;
	}
	return false;
}

int kube_parse_cgroup(const char *path, char uid[37], char cid[65])
{
	bool under = false, have_pod = false;
	const char *p = path;
	char name[256];
	uid[0] = cid[0] = '\0';
	while (*p) {
		while (*p == '/')
			p++;
		size_t len = strcspn(p, "/");
		if (!len)
			break;
		if (len < sizeof(name)) {
			memcpy(name, p, len);
			name[len] = '\0';
			if (have_pod) {
				/* the container's cgroup is the pod's child; deeper
				 * cgroups (nested in a container) belong to it */
				char id[65];
				if (rs_container_id_of(name, "", id))
					memcpy(cid, id, 65);
				return 0;
			}
			if (!strncmp(name, "kubepods", 8))
				under = true;
			have_pod = pod_uid_of(name, len, under, uid);
		}
		p += len;
	}
	return have_pod ? 0 : -ENOENT;
}

/* ---- the node's log tree ------------------------------------------------------ */

struct kube_pod {
	char *ns, *pod, *uid;
	char *only_container;	/* the one container directory, or NULL */
};

struct kube_ctr {
	char id[65];
	char *name;
};

struct kube_index {
	char *logs;
	struct kube_pod *pods;
	size_t npods;
	struct kube_ctr *ctrs;
	size_t nctrs;
	time_t scanned;
};

struct kube_index *kube_index_new(const char *logs)
{
	struct kube_index *k = calloc(1, sizeof(*k));
	if (!k || !(k->logs = strdup(logs ? logs : "/var/log"))) {
		free(k);
		return NULL;
	}
	k->scanned = -1;
	return k;
}

void kube_index_free(struct kube_index *k)
{
	if (!k)
		return;
	for (size_t i = 0; i < k->npods; i++) {
		free(k->pods[i].ns);
		free(k->pods[i].pod);
		free(k->pods[i].uid);
		free(k->pods[i].only_container);
	}
	for (size_t i = 0; i < k->nctrs; i++)
		free(k->ctrs[i].name);
	free(k->pods);
	free(k->ctrs);
	free(k->logs);
	free(k);
}

static struct kube_pod *find_pod(struct kube_index *k, const char *uid)
{
	for (size_t i = 0; i < k->npods; i++)
		if (!strcmp(k->pods[i].uid, uid))
			return &k->pods[i];
	return NULL;
}

/* the single subdirectory of dir, or NULL (none, several, unreadable) */
static char *only_subdir(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return NULL;
	char *found = NULL;
	int n = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (n++ == 0)
			found = strdup(de->d_name);
	}
	closedir(d);
	if (n != 1) {
		free(found);
		return NULL;
	}
	return found;
}

/* <ns>_<pod>_<uid> */
static void add_pod(struct kube_index *k, const char *name)
{
	const char *a = strchr(name, '_'), *b = a ? strchr(a + 1, '_') : NULL;
	if (!a || !b || a == name || b == a + 1 || !is_uid(b + 1, strlen(b + 1), '-') ||
	    find_pod(k, b + 1))
		return;
	struct kube_pod *v = realloc(k->pods, (k->npods + 1) * sizeof(*v));
	if (!v)
		return;
	k->pods = v;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/pods/%s", k->logs, name);
	struct kube_pod *p = &k->pods[k->npods];
	p->ns = strndup(name, (size_t)(a - name));
	p->pod = strndup(a + 1, (size_t)(b - a - 1));
	p->uid = strdup(b + 1);
	p->only_container = only_subdir(dir);
	if (!p->ns || !p->pod || !p->uid) {
		free(p->ns);
		free(p->pod);
		free(p->uid);
		free(p->only_container);
		return;
	}
	k->npods++;
}

/* <pod>_<ns>_<container>-<id>.log */
static void add_ctr(struct kube_index *k, const char *name)
{
	size_t len = strlen(name);
	const char *a = strchr(name, '_'), *b = a ? strchr(a + 1, '_') : NULL;
	if (!b || len < 4 + 65 || strcmp(name + len - 4, ".log"))
		return;
	const char *id = name + len - 4 - 64;
	char cid[65];
	if (id[-1] != '-' || id - 1 <= b + 1 || !rs_container_id_of(strndupa(id, 64), "", cid))
		return;
	for (size_t i = 0; i < k->nctrs; i++)
		if (!strcmp(k->ctrs[i].id, cid))
			return;
	struct kube_ctr *v = realloc(k->ctrs, (k->nctrs + 1) * sizeof(*v));
	if (!v)
		return;
	k->ctrs = v;
	memcpy(v[k->nctrs].id, cid, 65);
	if ((v[k->nctrs].name = strndup(b + 1, (size_t)(id - 1 - (b + 1)))))
		k->nctrs++;
}

static void scan(struct kube_index *k, const char *sub, void (*add)(struct kube_index *, const char *))
{
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/%s", k->logs, sub);
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *de;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			add(k, de->d_name);
	closedir(d);
}

static const char *ctr_name(struct kube_index *k, const char *cid)
{
	for (size_t i = 0; cid && *cid && i < k->nctrs; i++)
		if (!strcmp(k->ctrs[i].id, cid))
			return k->ctrs[i].name;
	return NULL;
}

bool kube_lookup(struct kube_index *k, const char *uid, const char *cid, struct kube_names *out)
{
	struct kube_pod *p = find_pod(k, uid);
	const char *name = ctr_name(k, cid);
	time_t now = time(NULL);
	/* a new pod or container: its log directory appears when it starts.
	 * Entries are only ever added, so names handed out stay valid. */
	if ((!p || (!name && cid && *cid)) && now != k->scanned) {
		k->scanned = now;
		scan(k, "pods", add_pod);
		scan(k, "containers", add_ctr);
		p = find_pod(k, uid);
		name = ctr_name(k, cid);
	}
	if (!p)
		return false;
	out->namespace_ = p->ns;
	out->pod = p->pod;
	out->container = name ? name : p->only_container && cid && *cid ? p->only_container : "";
	return true;
}
