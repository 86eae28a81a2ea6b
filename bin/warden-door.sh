# shellcheck shell=sh
# The door of `warden connect` (sourced by bin/warden and by the packaged app's launcher):
# `warden_door connect NAME [--client LABEL]` joins a running core of this user (the app or
# `warden serve`) through the local channel's door (main/gateway/local-door.ts) and relays with
# `cat`, without starting Node, whose start-up is most of what a joining launch would otherwise
# add before the server's first answer. It exits when the session ends. It returns, having sent
# nothing, when it is anything but a plain connect or in any doubt about the door (no live core,
# a folder others could enter, a refusal, a core that does not answer within 3 s): the caller
# then runs the full CLI with the same arguments, which does the same with its own checks and
# messages. Safe under `set -e`.

warden_door() {
  [ "$1" = connect ] || return
  server=$2
  client=stdio
  case $# in
    2) ;;
    4) [ "$3" = --client ] || return; client=$4 ;;
    *) return ;;
  esac
  case $server in [A-Za-z0-9]*) ;; *) return ;; esac
  case $server$client in *[!A-Za-z0-9._-]*) return ;; esac
  [ ${#server} -le 64 ] && [ ${#client} -le 200 ] || return
  for tool in cat ls mkfifo sleep; do
    command -v "$tool" >/dev/null 2>&1 || return
  done
  if [ -n "$WARDEN_HOME" ]; then
    run=$WARDEN_HOME/run
  else
    [ -n "$HOME" ] || return
    case $(uname -s) in
      Linux) run=${XDG_CONFIG_HOME:-$HOME/.config}/mcp-warden/run ;;
      Darwin) run="$HOME/Library/Application Support/mcp-warden/run" ;;
      *) return ;;
    esac
  fi
  # Only this user's core, in a folder only this user may enter (as bin/warden.js checks).
  [ -p "$run/door" ] && [ -O "$run/door" ] && [ ! -L "$run" ] && [ -d "$run" ] && [ -O "$run" ] || return
  case $(ls -ld "$run") in drwx------*) ;; *) return ;; esac
  # A door left behind by a core that has gone is not asked.
  IFS= read -r lock 2>/dev/null <"$run/core.lock" || return
  pid=${lock#*\"pid\":}
  pid=${pid%%[!0-9]*}
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return
  # Nor one whose PID another process has since (after a crash and a restart, say): on Linux the
  # lock names the boot and the start time of its core (main/core/core-lock.ts).
  case $lock in
    *'"start":"'*)
      if [ -r /proc/sys/kernel/random/boot_id ]; then
        boot=${lock#*\"boot\":\"}
        start=${lock#*\"start\":\"}
        IFS= read -r now <"/proc/sys/kernel/random/boot_id" || return
        [ "$now" = "${boot%%\"*}" ] || return
        IFS= read -r now <"/proc/$pid/stat" || return
        # Field 22: the command name may hold spaces and parentheses, so count from its last ')'.
        now=${now##*) }
        i=0
        while [ $i -lt 19 ]; do
          now=${now#* }
          i=$((i + 1))
        done
        [ "${now%% *}" = "${start%%\"*}" ] || return
      fi
      ;;
  esac

  pipes=$run/d$$
  mkfifo -m 600 "$pipes.i" "$pipes.o" 2>/dev/null || return
  # Both pipes are open here before the core is asked (it removes them once it has them open):
  # the input for writing, so that the core never reads an end before the relay; the answers for
  # reading. Until the core opens the answers, their only writer is a `sleep 3`: a core that has
  # gone (its door left behind) or hangs leaves nothing to read once it exits, and the session
  # goes to bin/warden.js.
  # shellcheck disable=SC2094 # one pipe, read here and held open for writing
  exec 4<>"$pipes.i" 7<>"$pipes.o" 5<"$pipes.o"
  sleep 3 4>&- 5<&- >/dev/null 2>&1 &
  watchdog=$!
  exec 7>&-
  printf '%s %s %s\n' "$$" "$server" "$client" 1<>"$run/door" || :
  IFS= read -r answer <&5 || answer=
  kill "$watchdog" 2>/dev/null || :
  if [ "$answer" != ok ]; then
    exec 4>&- 5<&-
    rm -f "$pipes.i" "$pipes.o"
    return
  fi

  # The relay: the client's messages to the core, the answers back. The session ends when the
  # core closes the answers (its end, or Stop in the app); the client's end of its input is
  # passed on, and the answers still come until the core closes them.
  to_core=
  from_core=
  trap 'kill $to_core $from_core 2>/dev/null; exit 143' HUP INT TERM
  exec 6<&0
  cat <&6 >&4 4>&- 5<&- 6<&- &
  to_core=$!
  cat <&5 4>&- 5<&- 6<&- &
  from_core=$!
  exec 4>&- 5<&- 6<&-
  wait "$from_core" || :
  kill "$to_core" 2>/dev/null || :
  exit 0
}


# `warden_ahead connect NAME [--client LABEL]`, once the door has not taken the session: where
# the last launch of NAME left the list of folders its hidden-path search recorded, starts
# coreutils' `stat` on them in the background, writing to a new file named by this shell's PID
# (the PID of the Node process it goes on to `exec`), and exports WARDEN_STAT_AHEAD (that PID and
# the job's, which Node stops once it has read the file) to say so. The search then takes the
# folders it shows unchanged without an `lstat` of its own (main/sandbox/hidden-paths-ahead.ts);
# the `stat` runs while Node starts. It does nothing in any doubt, and never waits. Safe under
# `set -e`.
warden_ahead() {
  [ "$1" = connect ] || return 0
  case $# in
    2) ;;
    4) [ "$3" = --client ] || return 0 ;;
    *) return 0 ;;
  esac
  case $2 in [A-Za-z0-9]*) ;; *) return 0 ;; esac
  case $2 in *[!A-Za-z0-9._-]*) return 0 ;; esac
  [ ${#2} -le 64 ] && [ -d /proc/self ] || return 0
  if [ -n "$WARDEN_HOME" ]; then
    ahead=$WARDEN_HOME/cache/hidden-paths/ahead
  else
    [ -n "$HOME" ] || return 0
    ahead=${XDG_CONFIG_HOME:-$HOME/.config}/mcp-warden/cache/hidden-paths/ahead
  fi
  list=$ahead/$2.folders
  [ -f "$list" ] && [ -d "$ahead" ] && [ ! -L "$ahead" ] && [ -O "$ahead" ] || return 0
  command -v xargs >/dev/null 2>&1 && command -v stat >/dev/null 2>&1 || return 0
  # The output is a file made new here, never one already there (noclobber), in a folder only
  # this user may enter: a file left by an earlier process with this PID is not taken for this
  # one's.
  case $- in *C*) noclobber=1 ;; *) noclobber= ;; esac
  set -C
  # shellcheck disable=SC2016 # the format is stat's, not the shell's
  if { xargs -r -0 -a "$list" stat --printf '%d %i %f %.9Z %n\0' </dev/null & } 2>/dev/null >"$ahead/$$"; then
    WARDEN_STAT_AHEAD=$$:$!
    export WARDEN_STAT_AHEAD
  fi
  [ -n "$noclobber" ] || set +C
}

# `warden_certs connect NAME [--client LABEL]`, once the door has not taken the session: moves
# NODE_EXTRA_CA_CERTS aside, as WARDEN_EXTRA_CA_CERTS=PID:FILE (the PID of the Node process this
# shell goes on to `exec`). Node reads that file as it starts, before the server's launch, and
# the connect process seldom opens TLS itself; it puts the variable back for what it starts and
# trusts the file where it does open TLS (main/egress/extra-ca.ts). Not when NODE_OPTIONS is set:
# an option there may choose another trust store. Safe under `set -e`.
warden_certs() {
  [ "$1" = connect ] && [ -n "${NODE_EXTRA_CA_CERTS-}" ] && [ -z "${NODE_OPTIONS-}" ] || return 0
  case $# in
    2) ;;
    4) [ "$3" = --client ] || return 0 ;;
    *) return 0 ;;
  esac
  WARDEN_EXTRA_CA_CERTS=$$:$NODE_EXTRA_CA_CERTS
  export WARDEN_EXTRA_CA_CERTS
  unset NODE_EXTRA_CA_CERTS
}
