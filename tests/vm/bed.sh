# bed.sh - the kernel test bed's host side (sourced by tests/vm/run and
# tests/vm/suite.sh).
#
# A kernel of the matrix (5.10 = Debian 11, 6.1 = Debian 12, 6.12 = Debian
# 12 backports) is fetched with `apt-get download` through a private sources
# list and apt state under build/vm/apt (the machine's own apt configuration
# is never read or written), unpacked with `dpkg-deb -x` into
# build/vm/KVER/, and booted under QEMU with this machine's root file
# system shared read-only over 9p; the guest's init (tests/vm/init) puts a
# tmpfs overlay over it, so the guest sees the same tree, sonde's build
# included, and may write anywhere without touching the host.  Everything
# fetched or built (packages, the unpacked kernel, the uncompressed vmlinux,
# the initramfs) stays in build/vm and is reused by later runs.
#
# A job is a shell script run by the guest's init; its output, its exit
# status and its result lines come back through a second, writable 9p
# share (build/vm/out/KVER), never by reading the console.  QEMU runs under
# timeout(1): a guest that hangs is killed and its job reported as failed.

vm_top=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
VMDIR=${VMDIR:-$vm_top/build/vm}
VM_KERNELS=${VM_KERNELS:-"5.10 6.1 6.12"}
VM_MEM=${VM_MEM:-2048}

# the package name pattern and the Debian suite of each kernel of the matrix
vm_pkg_regex() {
	case $1 in
	5.10) echo '^linux-image-5\.10\.0-[0-9]+-amd64-unsigned$' ;;
	6.1) echo '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' ;;
	6.12) echo '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' ;;
	*) return 1 ;;
	esac
}

# apt-get/apt-cache with every directory under build/vm/apt
vm_apt() {
	local a=$VMDIR/apt cmd=$1; shift
	"$cmd" -o Dir::Etc="$a/etc" -o Dir::Etc::SourceList="$a/etc/sources.list" \
		-o Dir::Etc::SourceParts="$a/etc/sources.list.d" \
		-o Dir::Etc::Preferences="$a/etc/preferences" \
		-o Dir::Etc::PreferencesParts="$a/etc/preferences.d" \
		-o Dir::State="$a/state" -o Dir::State::status="$a/state/status" \
		-o Dir::Cache="$a/cache" -o Debug::NoLocking=1 "$@"
}

vm_apt_update() {
	local a=$VMDIR/apt k=/usr/share/keyrings/debian-archive-keyring.gpg
	[ -s "$a/updated" ] && [ -n "$(find "$a/updated" -mtime -7 2>/dev/null)" ] && return 0
	mkdir -p "$a/etc/sources.list.d" "$a/etc/preferences.d" "$a/state/lists/partial" \
		"$a/cache/archives/partial"
	: > "$a/state/status"
	cat > "$a/etc/sources.list" <<-EOF
	deb [signed-by=$k] http://deb.debian.org/debian bookworm main
	deb [signed-by=$k] http://deb.debian.org/debian bookworm-backports main
	deb [signed-by=$k] http://deb.debian.org/debian bullseye main
	deb [signed-by=$k] http://deb.debian.org/debian-security bullseye-security main
	EOF
	vm_apt apt-get -qq update >"$a/update.log" 2>&1 || { cat "$a/update.log" >&2; return 1; }
	date > "$a/updated"
}

# vm_download REGEX DIR: the newest package matching REGEX, as DIR/*.deb
vm_download() {
	local re=$1 d=$2 pkg
	vm_apt_update || { echo "cannot reach the Debian archive (apt-get update failed)"; return 1; }
	pkg=$(vm_apt apt-cache pkgnames linux-image- | grep -E "$re" | sort -V | tail -1)
	[ -n "$pkg" ] || { echo "no package matches $re in the Debian archive"; return 1; }
	rm -rf "$d"; mkdir -p "$d/pkg"
	(cd "$d" && vm_apt apt-get -qq download "$pkg" >download.log 2>&1) ||
		{ echo "apt-get download $pkg failed: $(tail -1 "$d/download.log")"; return 1; }
}

# vm_fetch KVER: build/vm/KVER/{vmlinux,initrd.img,release} from the newest
# package of that kernel; prints why on failure (the caller's SKIP reason)
vm_fetch() {
	local v=$1 d=$VMDIR/$1 re deb rel
	if [ -s "$d/vmlinux" ] && [ -s "$d/release" ]; then
		# a changed tests/vm/init makes a new initramfs, nothing more
		[ "$d/initrd.img" -nt "$vm_top/tests/vm/init" ] && return 0
		vm_initrd "$d/pkg" "$(cat "$d/release")" "$d/initrd.img" && return 0
		echo "cannot build the initramfs for $(cat "$d/release")"; return 1
	fi
	re=$(vm_pkg_regex "$v") || { echo "unknown kernel $v (one of: $VM_KERNELS)"; return 1; }
	command -v qemu-system-x86_64 >/dev/null || { echo "qemu-system-x86 is not installed (make deps)"; return 1; }
	[ -x /bin/busybox ] || { echo "busybox-static is not installed (make deps)"; return 1; }
	# kernels are fetched two at a time, but apt runs one at a time on
	# the one private state (two updates at once corrupt each other's
	# lists: BADSIG, "Failed to stat .../partial/...")
	mkdir -p "$VMDIR"
	(flock 9 && vm_download "$re" "$d") 9>"$VMDIR/apt.lock" || return 1
	deb=$(ls "$d"/*.deb | head -1)
	dpkg-deb -x "$deb" "$d/pkg" || { echo "dpkg-deb -x $deb failed"; return 1; }
	rm -f "$deb"
	rel=$(ls "$d/pkg/lib/modules" | head -1)
	[ -n "$rel" ] || { echo "$(basename "$deb") has no modules"; return 1; }
	# modules.dep is made at install time: the guest's modprobe needs it too
	depmod -b "$d/pkg" "$rel" || { echo "depmod for $rel failed"; return 1; }
	vm_vmlinux "$d/pkg/boot/vmlinuz-$rel" "$d/vmlinux" ||
		{ echo "cannot extract vmlinux from $(basename "$deb")'s bzImage"; return 1; }
	vm_initrd "$d/pkg" "$rel" "$d/initrd.img" || { echo "cannot build the initramfs for $rel"; return 1; }
	echo "$rel" > "$d/release"
}

# vm_vmlinux BZIMAGE OUT: the uncompressed ELF kernel inside a bzImage,
# booted through its PVH entry point (Debian's packages ship no vmlinux;
# booting the bzImage costs ~5 s of decompression under TCG).  The payload
# is found by its compressor's magic; the first candidate that decompresses
# to an ELF file wins (the kernel's scripts/extract-vmlinux does the same).
vm_vmlinux() {
	local img=$1 out=$2 off magic tool
	for magic in 'xz:\xfd7zXZ\x00' 'zstd:\x28\xb5\x2f\xfd' 'gzip:\x1f\x8b\x08' 'lzma:\x5d\x00\x00\x00'; do
		tool=${magic%%:*}
		for off in $(LC_ALL=C grep -obaP "${magic#*:}" "$img" | cut -d: -f1 | head -5); do
			tail -c +$((off + 1)) "$img" | case $tool in
				xz) xz -dc 2>/dev/null ;; zstd) zstd -dcq 2>/dev/null ;;
				gzip) gzip -dc 2>/dev/null ;; lzma) xz -F lzma -dc 2>/dev/null ;;
			esac > "$out.tmp"
			if [ "$(head -c 4 "$out.tmp" | od -An -c | tr -d ' ')" = '177ELF' ]; then
				mv "$out.tmp" "$out"; return 0
			fi
		done
	done
	rm -f "$out.tmp"; return 1
}

# vm_mods_for PKG REL MOD...: the .ko files MOD needs, dependencies first
# (from the package's own modules.dep)
vm_mods_for() {
	local pkg=$1 rel=$2; shift 2
	awk -v want="$*" '
		{ sub(":", "", $1); n = split($1, p, "/"); m = p[n]; sub(/\.ko(\.[a-z]+)?$/, "", m)
		  gsub("-", "_", m); path[m] = $1; deps[m] = ""
		  for (i = 2; i <= NF; i++) deps[m] = deps[m] " " $i }
		function base(f,   q, n, m) { n = split(f, q, "/"); m = q[n]; sub(/\.ko(\.[a-z]+)?$/, "", m); gsub("-", "_", m); return m }
		function add(m,   d, i, n) { if (!(m in path) || (m in seen)) return; seen[m] = 1
		  n = split(deps[m], d, " "); for (i = n; i >= 1; i--) add(base(d[i])); print path[m] }
		END { n = split(want, w, " "); for (i = 1; i <= n; i++) add(w[i]) }
	' "$pkg/lib/modules/$rel/modules.dep"
}

# vm_initrd PKG REL OUT: busybox-static, tests/vm/init and the modules that
# reach the root file system (virtio, 9p, overlay), uncompressed, in order
vm_initrd() {
	local pkg=$1 rel=$2 out=$3 t f i=0
	t=$(mktemp -d "$VMDIR/initrd.XXXXXX")
	mkdir -p "$t/bin" "$t/mod" "$t/dev" "$t/proc" "$t/sys" "$t/newroot" "$t/ro" "$t/rw"
	cp /bin/busybox "$t/bin/busybox"
	cp "$vm_top/tests/vm/init" "$t/init"; chmod 755 "$t/init"
	for f in $(vm_mods_for "$pkg" "$rel" virtio_pci virtio_blk 9pnet_virtio 9p overlay virtio_console); do
		i=$((i + 1))
		case $f in
		*.ko.xz) xz -dc "$pkg/lib/modules/$rel/$f" ;;
		*.ko.zst) zstd -dcq "$pkg/lib/modules/$rel/$f" ;;
		*.ko.gz) gzip -dc "$pkg/lib/modules/$rel/$f" ;;
		*) cat "$pkg/lib/modules/$rel/$f" ;;
		esac > "$t/mod/$(printf %02d $i)-$(basename "${f%%.ko*}").ko" || return 1
	done
	# written aside and renamed: a guest booting meanwhile reads the old one
	(set -o pipefail; cd "$t" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$out.tmp" ||
		return 1
	mv "$out.tmp" "$out"
	rm -rf "$t"
}

# vm_accel: kvm where /dev/kvm really runs a stock kernel (a hardware
# virtualisation extension and a kvm that is not the paravirtual kvm_pvm,
# which runs only kernels built for it), tcg elsewhere; VM_ACCEL overrides
vm_accel() {
	[ -n "${VM_ACCEL:-}" ] && { echo "$VM_ACCEL"; return; }
	if [ -w /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo && [ ! -d /sys/module/kvm_pvm ]; then
		echo kvm
	else
		echo tcg
	fi
}

# vm_boot KVER JOB TIMEOUT [SMP]: boot KVER and run the script JOB in it as
# root, in the project's directory; JOB's stdout+stderr go to
# $VMDIR/out/KVER/out (VM_OUT: another directory) and its status to .../rc
# (absent when the guest died or was killed).  Returns JOB's status, 124 when the guest timed out, 125
# when the guest ended without a status.
vm_boot() {
	local v=$1 job=$2 tmo=$3 smp=${4:-1} d=$VMDIR/$1 o=${VM_OUT:-$VMDIR/out/$1} accel rc cpu
	rm -rf "$o"; mkdir -p "$o"
	cp "$job" "$o/job.sh"
	printf '%s\n' "$vm_top" > "$o/cwd"
	printf '%s\n' "$v" > "$o/kver"
	# where init finds the kernel's modules (VMDIR may be anywhere)
	(cd "$d/pkg/lib/modules" 2>/dev/null && pwd -P) > "$o/modules"
	accel=$(vm_accel)
	cpu=max; [ "$accel" = kvm ] && cpu=host
	# (VM_NICE: tests/vm/suite.sh's guests yield to the host suites beside them)
	timeout -k 5 "$tmo" nice -n "${VM_NICE:-0}" qemu-system-x86_64 -accel "$accel" -cpu "$cpu" -smp "$smp" -m "$VM_MEM" \
		-nodefaults -no-user-config -display none -no-reboot \
		-serial "file:$o/console.log" \
		-kernel "$d/vmlinux" -initrd "$d/initrd.img" \
		-append "console=ttyS0 quiet loglevel=3 no_timer_check panic=-1 oops=panic rdinit=/init ${VM_APPEND:-}" \
		-fsdev "local,id=root,path=/,security_model=none,readonly=on,multidevs=remap" \
		-device virtio-9p-pci,fsdev=root,mount_tag=root \
		-fsdev "local,id=out,path=$o,security_model=none" \
		-device virtio-9p-pci,fsdev=out,mount_tag=out \
		</dev/null >"$o/qemu.log" 2>&1
	rc=$?
	[ "$rc" = 124 ] || [ "$rc" = 137 ] && return 124
	[ -s "$o/rc" ] || return 125
	return "$(cat "$o/rc")"
}
