/* The launcher's network filters: see net-filter.c. */
#ifndef WARDEN_NET_FILTER_H
#define WARDEN_NET_FILTER_H
#include <stdint.h>

void deny_datagrams(int no_inet);
void deny_host_ipc(void);
int install_connect_notify(void);
void answer_connect(int listener, uint16_t port);
#endif
