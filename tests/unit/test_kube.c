/*
 * test_kube.c - Kubernetes names from cgroup paths and the kubelet's log
 * tree (host/kube.c): both cgroup layouts, each runtime prefix, paths that
 * look close but are not a pod's, and a fake <logs>/pods tree.  The whole
 * path through BPF and the exporter runs in tests/e2e/t_serve.sh.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "host/host.h"

#define UID "1b2c3d4e-0000-4111-8222-93334444aaaa"
#define UIDS "1b2c3d4e_0000_4111_8222_93334444aaaa"
#define CID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define CID2 "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"

static void expect(const char *path, int rc, const char *uid, const char *cid)
{
	char u[37], c[65];
	assert_int_equal(kube_parse_cgroup(path, u, c), rc);
	if (rc == 0) {
		assert_string_equal(u, uid);
		assert_string_equal(c, cid);
	}
}

static void test_systemd_layout(void **state)
{
	expect("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UIDS
	       ".slice/cri-containerd-" CID ".scope", 0, UID, CID);
	expect("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UIDS
	       ".slice/crio-" CID ".scope", 0, UID, CID);
	/* guaranteed QoS has no class level */
	expect("/kubepods.slice/kubepods-pod" UIDS ".slice/docker-" CID ".scope", 0, UID, CID);
	/* the pod's own cgroup, and a cgroup nested in a container */
	expect("/kubepods.slice/kubepods-pod" UIDS ".slice", 0, UID, "");
	expect("/kubepods.slice/kubepods-pod" UIDS ".slice/cri-containerd-" CID ".scope/init", 0,
	       UID, CID);
	/* under a prefix (a test's own subtree, a nested kind node) */
	expect("/sonde-test/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UIDS
	       ".slice/cri-containerd-" CID2 ".scope", 0, UID, CID2);
}

static void test_cgroupfs_layout(void **state)
{
	expect("/kubepods/burstable/pod" UID "/" CID, 0, UID, CID);
	expect("/kubepods/pod" UID "/" CID2, 0, UID, CID2);
	expect("/kubepods/besteffort/pod" UID "/crio-" CID, 0, UID, CID);
}

static void test_not_a_pod(void **state)
{
	expect("/", -ENOENT, NULL, NULL);
	expect("", -ENOENT, NULL, NULL);
	expect("/system.slice/docker-" CID ".scope", -ENOENT, NULL, NULL);
	/* pod<uid> outside kubepods, and a dashed UID in the systemd form */
	expect("/other/pod" UID "/" CID, -ENOENT, NULL, NULL);
	expect("/kubepods.slice/kubepods-pod" UID ".slice/" CID, -ENOENT, NULL, NULL);
	/* a UID one character short, upper case */
	expect("/kubepods/pod1b2c3d4e-0000-4111-8222-93334444aaa/" CID, -ENOENT, NULL, NULL);
	expect("/kubepods/pod1B2C3D4E-0000-4111-8222-93334444aaaa/" CID, -ENOENT, NULL, NULL);
	/* a long component is skipped, not overflowed */
	char longp[1200] = "/kubepods/";
	memset(longp + 10, 'x', 1000);
	expect(longp, -ENOENT, NULL, NULL);
	/* the pod's child that is not a container gives no id */
	expect("/kubepods/pod" UID "/not-a-container", 0, UID, "");
}

/* ---- the log tree ------------------------------------------------------------- */

static void mk(const char *root, const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(mkdir(p, 0755), 0);
}

static void touch(const char *root, const char *rel)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fclose(f);
}

static void test_log_tree(void **state)
{
	char root[] = "/tmp/sonde-kube-XXXXXX";
	assert_non_null(mkdtemp(root));
	mk(root, "pods");
	mk(root, "containers");
	mk(root, "pods/shop_web-7d9f_" UID);
	mk(root, "pods/shop_web-7d9f_" UID "/nginx");
	mk(root, "pods/shop_web-7d9f_" UID "/sidecar");
	touch(root, "containers/web-7d9f_shop_nginx-" CID ".log");
	touch(root, "containers/web-7d9f_shop_sidecar-" CID2 ".log");
	/* junk the scan must skip */
	mk(root, "pods/no-underscores");
	mk(root, "pods/a_b_not-a-uid");
	touch(root, "containers/short-abc.log");

	struct kube_index *k = kube_index_new(root);
	assert_non_null(k);
	struct kube_names n;
	assert_true(kube_lookup(k, UID, CID, &n));
	assert_string_equal(n.namespace_, "shop");
	assert_string_equal(n.pod, "web-7d9f");
	assert_string_equal(n.container, "nginx");
	assert_true(kube_lookup(k, UID, CID2, &n));
	assert_string_equal(n.container, "sidecar");
	/* the pod's own cgroup: no container name */
	assert_true(kube_lookup(k, UID, "", &n));
	assert_string_equal(n.container, "");
	assert_false(kube_lookup(k, "00000000-0000-4000-8000-000000000000", CID, &n));
	kube_index_free(k);

	/* a pod with one container needs no containers/ symlink */
	char root2[] = "/tmp/sonde-kube-XXXXXX";
	assert_non_null(mkdtemp(root2));
	mk(root2, "pods");
	mk(root2, "pods/kube-system_coredns-x1_" UID);
	mk(root2, "pods/kube-system_coredns-x1_" UID "/coredns");
	k = kube_index_new(root2);
	assert_true(kube_lookup(k, UID, CID, &n));
	assert_string_equal(n.namespace_, "kube-system");
	assert_string_equal(n.pod, "coredns-x1");
	assert_string_equal(n.container, "coredns");
	kube_index_free(k);

	char cmd[256];
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", root, root2);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_systemd_layout),
		cmocka_unit_test(test_cgroupfs_layout),
		cmocka_unit_test(test_not_a_pod),
		cmocka_unit_test(test_log_tree),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
