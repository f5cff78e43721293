#include <iostream>

#include "cli.hpp"

int main(int argc, char** argv) { return membudget::runCli(argc, argv, std::cin, std::cout, std::cerr); }
