/* UCX's printed descriptions, read line by line: UCP has no query for an
 * endpoint's transports or a context's resources in the versions we build
 * against, so lanes.c and sleep.c read what ucp_ep_print_info and
 * ucp_context_print_info write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/ucx/ucx.h"

int aos__ucx_each_printed_line(void (*print)(void *obj, FILE *f), void *obj,
                               void (*line_fn)(const char *line, void *arg), void *arg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (f == NULL)
        return 0;
    print(obj, f);
    if (fclose(f) != 0) {
        free(text);
        return 0;
    }
    for (char *line = text, *end; line != NULL && *line != '\0'; line = end) {
        end = strchr(line, '\n');
        if (end != NULL)
            *end++ = '\0';
        line_fn(line, arg);
    }
    free(text);
    return 1;
}
