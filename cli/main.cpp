#include <iostream>

#include "cli.hpp"

#include <new>

// An input that passes every reader's limits yet exhausts memory ends like any bad input: exit 2, said.
int main(int argc, char** argv) {
    try {
        return membudget::runCli(argc, argv, std::cin, std::cout, std::cerr);
    } catch (const std::bad_alloc&) {
        std::cerr << "membudget: error: the input needs more memory than this machine gave (bad_alloc); no result\n";
        return 2;
    }
}
