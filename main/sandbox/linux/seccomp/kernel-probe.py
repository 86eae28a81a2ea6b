"""Seccomp probe run inside bubblewrap by seccomp-kernel.test.ts.

argv[1] is a mode: "checks" runs the raw syscalls given as JSON in argv[2] plus the library-level
checks below and prints one JSON object {name: {"ret": int, "errno": str|None}}; "int80" makes an
i386 syscall through `int 0x80` (a foreign seccomp arch) and prints what happened around it.
"""
import ctypes
import errno
import json
import mmap
import os
import socket
import subprocess
import sys
import threading

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
MASK64 = (1 << 64) - 1


def outcome(ret, err):
    return {"ret": ret, "errno": errno.errorcode.get(err, str(err)) if ret < 0 else None}


def raw(nr, args):
    ctypes.set_errno(0)
    ret = libc.syscall(ctypes.c_long(nr), *[ctypes.c_ulong(a & MASK64) for a in args])
    return outcome(ret, ctypes.get_errno())


def in_child(fn):
    """Runs fn in a forked child (for calls that change the process) and returns its outcome."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.write(w, json.dumps(fn()).encode())
        finally:
            os._exit(0)
    os.close(w)
    data = os.read(r, 4096)
    os.waitpid(pid, 0)
    return json.loads(data)


def attempt(fn):
    try:
        fn()
        return {"ret": 0, "errno": None}
    except OSError as e:
        return outcome(-1, e.errno)


def sock(*args):
    return lambda: socket.socket(*args).close()


def socketpair():
    a, b = socket.socketpair()
    a.close()
    b.close()


def inet_loopback():
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    cli = socket.create_connection(srv.getsockname())
    conn, _ = srv.accept()
    cli.sendall(b"ping")
    if conn.recv(4) != b"ping":
        raise OSError(errno.EIO, "loopback echo failed")
    for s in (cli, conn, srv):
        s.close()


def fork_child():
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    _, status = os.waitpid(pid, 0)
    if os.waitstatus_to_exitcode(status) != 7:
        raise OSError(errno.ECHILD, "child did not exit 7")


def thread():
    box = []
    t = threading.Thread(target=lambda: box.append(1))
    t.start()
    t.join()
    if box != [1]:
        raise OSError(errno.EIO, "thread did not run")


def clone_flags(flags, clone_nr):
    """A raw fork-like clone (no new stack) with extra flags; the child exits at once."""
    res = raw(clone_nr, [17 | flags, 0, 0, 0, 0])
    if res["ret"] == 0:
        os._exit(0)
    if res["ret"] > 0:
        os.waitpid(res["ret"], 0x40000000)  # __WALL
        res["ret"] = 1
    return res


def asyncio_loop():
    import asyncio

    asyncio.new_event_loop().close()


def run_checks(spec):
    results = {}
    for check in spec["raw"]:
        args = [int(a) for a in check["args"]]
        if check.get("inChild"):
            res = in_child(lambda: raw(check["nr"], args))
        else:
            res = raw(check["nr"], args)
            if check.get("closeFd") and res["ret"] >= 0:
                os.close(res["ret"])
        results[check["name"]] = res
    clone_nr = spec["cloneNr"]
    lib = {
        "py-socket-unix": sock(socket.AF_UNIX, socket.SOCK_STREAM),
        "py-socket-unix-dgram": sock(socket.AF_UNIX, socket.SOCK_DGRAM),
        "py-socketpair": socketpair,
        "py-socket-netlink": sock(socket.AF_NETLINK, socket.SOCK_RAW, 0),
        "py-socket-packet": sock(socket.AF_PACKET, socket.SOCK_RAW, 0),
        "py-socket-inet6": sock(socket.AF_INET6, socket.SOCK_STREAM),
        "py-inet-loopback": inet_loopback,
        "py-fork": fork_child,
        "py-thread": thread,
        "py-subprocess": lambda: subprocess.run(["true"], check=True),
        "py-read-file": lambda: open("/proc/self/status").read(),
        "py-asyncio-loop": asyncio_loop,
    }
    for name, fn in lib.items():
        results[name] = in_child(lambda: attempt(fn))
    for name, flags in spec["cloneFlags"].items():
        results[name] = in_child(lambda: clone_flags(int(flags), clone_nr))
    return results


def int80():
    code = bytes([0xB8, 0x14, 0, 0, 0, 0xCD, 0x80, 0xC3])  # mov eax, 20 (getpid); int 0x80; ret
    buf = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    buf.write(code)
    addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
    fn = ctypes.CFUNCTYPE(ctypes.c_int)(addr)
    print("before", flush=True)
    print("after", fn(), flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "int80":
        int80()
    else:
        print(json.dumps(run_checks(json.loads(sys.argv[2]))))
