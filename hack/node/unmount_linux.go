package node

import "syscall"

// unmountFlags detaches a busy mount (umount -l), as the kubelet leaves some.
const unmountFlags = syscall.MNT_DETACH
