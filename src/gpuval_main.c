/* gpuval_main.c: the entry of the gpuval command (the command line is main.c's
 * gv_cli_main, shared with gv_main in libgpuval). */
#include "main.h"

int main(int argc, char **argv)
{
    return gv_cli_main(argc, argv);
}
