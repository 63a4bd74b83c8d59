// Host stand-in (see OObject.h).
#ifndef STANDIN_OSYSLOG_H
#define STANDIN_OSYSLOG_H
#include <stdio.h>
#define osyslogERROR 0
#define OSYSLOG1_(level, ...) (printf("syslog "), printf(__VA_ARGS__), printf("\n"))
#define OSYSLOG1(args) OSYSLOG1_ args
#endif
