#!/bin/busybox sh
# The init of the integration VM: load the modules, mount the host's root
# read-only over 9p, and run the suite in it with fresh /proc, /sys, /dev,
# /tmp and /run. Parameters come on the kernel command line (vkbd.repo,
# vkbd.bin, vkbd.select, vkbd.group, vkbd.tools, vkbd.soak). Output goes to
# the serial console.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
while read -r module; do
  [ -n "$module" ] && insmod "/modules/$module.ko"
done < /modules/order

for parameter in $(cat /proc/cmdline); do
  case "$parameter" in
    vkbd.repo=*) repo="${parameter#vkbd.repo=}" ;;
    vkbd.bin=*) binary="${parameter#vkbd.bin=}" ;;
    vkbd.select=*) select="${parameter#vkbd.select=}" ;;
    vkbd.group=*) group="${parameter#vkbd.group=}" ;;
    vkbd.tools=*) tools="${parameter#vkbd.tools=}" ;;
    vkbd.soak=*) soak="${parameter#vkbd.soak=}" ;;
  esac
done

mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose host /host || {
  echo "integration: 0 passed, 1 failed (cannot mount the host's root)"
  echo o > /proc/sysrq-trigger
}
# The repository may live under /tmp or /run, which get fresh tmpfs below:
# hold on to it and put it back at its path.
mkdir -p /repository
mount -o bind "/host$repo" /repository
mount -t proc proc /host/proc
mount -t sysfs sys /host/sys
mount -t devtmpfs dev /host/dev
mkdir -p /host/dev/pts /host/dev/shm 2>/dev/null
mount -t devpts devpts /host/dev/pts 2>/dev/null
mount -t tmpfs shm /host/dev/shm
mount -t tmpfs tmp /host/tmp
mount -t tmpfs run /host/run
case "$repo" in
  /tmp/* | /run/*)
    mkdir -p "/host$repo"
    mount -o bind /repository "/host$repo"
    ;;
esac
[ "$select" = "-" ] && select=""

chroot /host /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  HOME=/tmp LANG=C.UTF-8 PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 VKBD_BIN="$binary" \
  VKBD_LATENCY_TOOLS="$tools" VKBD_SOAK="${soak:-1}" VKBD_GROUP="${group:-main}" \
  /bin/sh -c 'cd "$1" && exec /usr/bin/python3 Tests/Integration/harness.py "$2"' sh "$repo" "$select"

echo o > /proc/sysrq-trigger
sleep 10
