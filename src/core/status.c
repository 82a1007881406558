#include "aos.h"

const char *aos_strerror(int status)
{
    switch (status) {
#define AOS__STATUS_TEXT(name, value, message)                                              \
    case value: return message;
        AOS_STATUS_TABLE(AOS__STATUS_TEXT)
#undef AOS__STATUS_TEXT
    default: return "unknown aos status code";
    }
}
