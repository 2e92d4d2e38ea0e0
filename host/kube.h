/*
 * kube.h - Kubernetes names (kube.c).
 */
#ifndef SONDE_HOST_KUBE_H
#define SONDE_HOST_KUBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct arena;

/* A pod's containers live in cgroups the kubelet names after the pod UID
 * and the runtime after the container id; the kubelet also keeps each
 * pod's logs under <logs>/pods/<namespace>_<pod>_<uid>/<container>/.
 * Together they turn a cgroup path into namespace, pod and container
 * without an API server or credentials. */

/* Pod UID (with dashes, as in the API) and container id (64 hex, "" when
 * the cgroup is the pod's own, not one of its containers) from a cgroup
 * path of either layout:
 *   systemd:  .../kubepods-burstable-pod<uid_with_underscores>.slice/cri-containerd-<id>.scope
 *   cgroupfs: .../kubepods/burstable/pod<uid>/<id>
 * (crio-<id>.scope and docker-<id>.scope too).  0, or -ENOENT when the
 * path is not a pod's. */
int kube_parse_cgroup(const char *path, char uid[37], char cid[65]);

struct kube_names {
	const char *namespace_;
	const char *pod;
	const char *container;	/* "" when the logs do not say which */
};

/* An index of <logs>/pods and <logs>/containers (logs: "/var/log" on a
 * node; a temporary tree in tests).  Rescanned when a UID is not found,
 * at most once a second. */
struct kube_index;
struct kube_index *kube_index_new(const char *logs);
void kube_index_free(struct kube_index *k);
/* Names of the pod `uid` and its container `cid`; false when the node's
 * logs do not know the pod.  The strings live as long as k. */
bool kube_lookup(struct kube_index *k, const char *uid, const char *cid, struct kube_names *out);

#endif
