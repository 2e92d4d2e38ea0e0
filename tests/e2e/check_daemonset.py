#!/usr/bin/env python3
"""check_daemonset.py MANIFEST [SCRIPT_OUT] - the security-relevant fields of
deploy/daemonset.yaml (run by tests/e2e/t_serve.sh).

Prints "ok", or one line per problem.  Asserts: hostPID; not privileged,
no privilege escalation, capabilities dropped to ALL then exactly the ones
BPF tracing needs added; every hostPath read-only and the host paths sonde
needs all mounted; a readiness probe on /metrics; Prometheus scrape
annotations that name the port sonde serves.  With SCRIPT_OUT, writes the
ConfigMap's script there so the caller can compile it (--dry-run).
"""
import sys

import yaml

NEEDED_CAPS = {"BPF", "PERFMON", "SYS_ADMIN", "SYS_PTRACE", "DAC_READ_SEARCH", "SYS_RESOURCE"}
NEEDED_HOST_PATHS = {"/sys/kernel/tracing", "/sys/kernel/btf", "/sys/fs/cgroup", "/proc", "/var/log/pods"}


def main():
    docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]
    problems = []
    ds = [d for d in docs if d.get("kind") == "DaemonSet"]
    cms = [d for d in docs if d.get("kind") == "ConfigMap"]
    if len(ds) != 1:
        print("want one DaemonSet, found %d" % len(ds))
        return 1
    pod = ds[0]["spec"]["template"]
    spec = pod["spec"]
    if spec.get("hostPID") is not True:
        problems.append("hostPID is not true")
    if spec.get("hostNetwork"):
        problems.append("hostNetwork is set")
    (c,) = spec["containers"]
    sc = c.get("securityContext", {})
    if sc.get("privileged"):
        problems.append("privileged")
    if sc.get("allowPrivilegeEscalation") is not False:
        problems.append("allowPrivilegeEscalation is not false")
    if sc.get("readOnlyRootFilesystem") is not True:
        problems.append("root filesystem is writable")
    caps = sc.get("capabilities", {})
    if caps.get("drop") != ["ALL"]:
        problems.append("capabilities.drop is not [ALL]: %r" % caps.get("drop"))
    if set(caps.get("add", [])) != NEEDED_CAPS:
        problems.append("capabilities.add is %r, want %r" % (sorted(caps.get("add", [])), sorted(NEEDED_CAPS)))
    vols = {v["name"]: v for v in spec.get("volumes", [])}
    host_paths = set()
    for m in c.get("volumeMounts", []):
        v = vols.get(m["name"])
        if v is None:
            problems.append("mount %s has no volume" % m["name"])
            continue
        if "hostPath" in v:
            host_paths.add(v["hostPath"]["path"])
        if m.get("readOnly") is not True:
            problems.append("mount %s (%s) is not read-only" % (m["name"], m["mountPath"]))
    for v in vols.values():
        if "hostPath" in v and v["name"] not in {m["name"] for m in c.get("volumeMounts", [])}:
            problems.append("volume %s is not mounted" % v["name"])
    missing = NEEDED_HOST_PATHS - host_paths
    if missing:
        problems.append("host paths not mounted: %s" % ", ".join(sorted(missing)))
    probe = c.get("readinessProbe", {}).get("httpGet", {})
    if probe.get("path") != "/metrics":
        problems.append("no readiness probe on /metrics")
    ports = {p["name"]: p["containerPort"] for p in c.get("ports", [])}
    ann = pod["metadata"].get("annotations", {})
    if ann.get("prometheus.io/scrape") != "true" or ann.get("prometheus.io/path") != "/metrics":
        problems.append("Prometheus scrape annotations missing")
    port = ann.get("prometheus.io/port")
    args = c.get("args", [])
    serve = args[args.index("--serve") + 1] if "--serve" in args else ""
    if not port or str(ports.get("metrics")) != port or not serve.endswith(":" + port):
        problems.append("annotation port %r, container port %r and --serve %r disagree"
                        % (port, ports.get("metrics"), serve))
    if probe.get("port") not in ("metrics", ports.get("metrics")):
        problems.append("readiness probe port is not the metrics port")
    script = args[-1] if args else ""
    mounts = {m["mountPath"]: vols.get(m["name"], {}) for m in c.get("volumeMounts", [])}
    cm_vol = mounts.get(script.rsplit("/", 1)[0], {}).get("configMap", {})
    cm = [d for d in cms if d["metadata"]["name"] == cm_vol.get("name")]
    key = script.rsplit("/", 1)[-1]
    if not cm or key not in cm[0].get("data", {}):
        problems.append("the script %s does not come from a ConfigMap" % script)
    elif len(sys.argv) > 2:
        with open(sys.argv[2], "w") as f:
            f.write(cm[0]["data"][key])
    print("\n".join(problems) if problems else "ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
