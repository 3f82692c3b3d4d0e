/* nosym.c: a shared library without gpuval's entry symbol (tests/cpu/test_plugin.c). */
int not_a_gpuval_plugin(void)
{
    return 1;
}
