#define FIX_IOC(n, size) (0xc0000000UL | ((size) << 16) | (0x46 << 8) | (n))
#define FIX_IOCTL_ALLOC FIX_IOC(0x2b, 32)
#define FIX_VERSION 7
