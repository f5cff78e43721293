# The WebAssembly build (emcmake cmake -S . -B build-wasm): an ES module and its .wasm, for the page and
# for the Node tests. Included from the top-level CMakeLists.txt when EMSCRIPTEN is set.
# No JSON library in the wasm: the page parses with JSON.parse and writes the CLI's JSON in TypeScript
# (web/src/result-json.ts), which keeps a serializer's 10 KB gzipped out of the module.
add_executable(membudget_wasm wasm/bindings.cpp wasm/glue.cpp wasm/record_val.cpp)
set_target_properties(membudget_wasm PROPERTIES OUTPUT_NAME membudget SUFFIX ".js")
target_link_libraries(membudget_wasm PRIVATE membudget_engine membudget_warnings)
# Chosen by measurement (README, "WebAssembly size flags"): -Oz with LTO gave the smallest gzipped .wasm + .js.
set(MEMBUDGET_WASM_OPT "-Oz;-flto" CACHE STRING "Optimisation flags for the wasm build (a CMake list)")
target_compile_options(membudget_engine PRIVATE ${MEMBUDGET_WASM_OPT})
# The fields' help and sources come to the page from web/src/generated/field-text.ts, not from its module; the record
# tables' JSON keys and documentation, which no wasm reads, from web/src/generated/records.ts.
target_compile_definitions(membudget_engine PRIVATE MEMBUDGET_PAGE_TEXT_OUTSIDE=1 MEMBUDGET_RECORD_TEXT_OUTSIDE=1)
target_compile_options(membudget_wasm PRIVATE ${MEMBUDGET_WASM_OPT})
# The glue walks the same record tables, whose columns have no JSON key or documentation here (base/record.hpp).
target_compile_definitions(membudget_wasm PRIVATE MEMBUDGET_RECORD_TEXT_OUTSIDE=1)
target_link_options(membudget_wasm PRIVATE
  ${MEMBUDGET_WASM_OPT}
  --bind
  -sMODULARIZE=1
  -sEXPORT_ES6=1
  -sEXPORT_NAME=createMembudget
  -sFILESYSTEM=0
  -sENVIRONMENT=web,worker
  -sALLOW_MEMORY_GROWTH=1
  -sINITIAL_MEMORY=16MB
  -sDYNAMIC_EXECUTION=0
  -sINCOMING_MODULE_JS_API=wasmBinary,instantiateWasm,locateFile,print,printErr)

# The planner's module: the same bindings plus plan() and markPareto(), for the page's Web Worker only, so
# that the page's own module stays within its size budget (README "Budgets").
add_executable(membudget_planner_wasm wasm/bindings.cpp wasm/glue.cpp wasm/record_val.cpp)
set_target_properties(membudget_planner_wasm PROPERTIES OUTPUT_NAME membudget-planner SUFFIX ".js")
target_compile_definitions(membudget_planner_wasm PRIVATE MEMBUDGET_WASM_PLANNER=1 MEMBUDGET_RECORD_TEXT_OUTSIDE=1)
# The planner evaluates millions of ledgers: its module, loaded on demand, is built for speed (-O3), from its
# own compilation of the engine, while the page's module stays built for size.
set(MEMBUDGET_PLANNER_WASM_OPT "-O3;-flto" CACHE STRING "Optimisation flags for the planner's wasm module")
get_target_property(membudget_engine_sources membudget_engine SOURCES)
add_library(membudget_engine_fast STATIC ${membudget_engine_sources})
target_include_directories(membudget_engine_fast PUBLIC engine/include PRIVATE engine/src)
target_compile_options(membudget_engine_fast PRIVATE ${MEMBUDGET_PLANNER_WASM_OPT})
target_compile_definitions(membudget_engine_fast PRIVATE MEMBUDGET_PAGE_TEXT_OUTSIDE=1 MEMBUDGET_RECORD_TEXT_OUTSIDE=1)
target_link_libraries(membudget_engine_fast PRIVATE membudget_warnings)
target_link_libraries(membudget_planner_wasm PRIVATE membudget_engine_fast membudget_warnings)
# What is built for speed is a property of the topic folder (docs/build.md), so that a new file cannot land in the
# wrong list: the planner's kernel (the record, its validation and architecture counts in model/, the memory
# methods in memory/, the step time, the planner) is built for speed; the text (base/'s formatting, the importers
# and exporters, evaluate()'s composition of the ledger, the JSON and measured readers) for size, as in the page's
# module, which keeps the planner's module within its budget without slowing the search.
set(MEMBUDGET_SIZE_TOPICS base formats evaluate io memory/ledger memory/sources model/presets
    CACHE STRING "Engine folders (under engine/src) built -Oz in the planner's module")
foreach(source ${membudget_engine_sources})
  file(RELATIVE_PATH relative ${CMAKE_SOURCE_DIR}/engine/src ${source})
  get_filename_component(folder ${relative} DIRECTORY)
  if(folder IN_LIST MEMBUDGET_SIZE_TOPICS)
    set_source_files_properties(${source} TARGET_DIRECTORY membudget_engine_fast PROPERTIES COMPILE_OPTIONS "-Oz")
  endif()
endforeach()
target_compile_options(membudget_planner_wasm PRIVATE ${MEMBUDGET_PLANNER_WASM_OPT})
get_target_property(membudget_wasm_link_options membudget_wasm LINK_OPTIONS)
list(REMOVE_ITEM membudget_wasm_link_options ${MEMBUDGET_WASM_OPT})
set_target_properties(membudget_planner_wasm PROPERTIES
  LINK_OPTIONS "${MEMBUDGET_PLANNER_WASM_OPT};${membudget_wasm_link_options};-sEXPORT_NAME=createMembudgetPlanner")
# The page's module evaluates one ledger per change: emmalloc, 2 KB gzipped smaller than dlmalloc, at the
# same speed for an evaluate (measured under Node); the planner keeps dlmalloc for its millions of ledgers.
target_link_options(membudget_wasm PRIVATE -sMALLOC=emmalloc)
# Binaryen's passes run again until the module stops shrinking: 0.5 KB gzipped off the page's module (issue 31), for
# seconds of link time.
target_link_options(membudget_wasm PRIVATE -sBINARYEN_EXTRA_PASSES=--converge)

# The page and the Node tests import the modules from web/src/wasm/, next to their hand-written .d.ts. The page's
# module goes there as code and data apart (scripts/split-wasm-data.mjs): its data section (the ledger's text, the
# tables) is fetched beside it and copied into its memory before its code runs (web/src/wasm-data.ts), so that the
# module the page compiles first holds only code (issue 31). The planner's module, loaded on demand, stays whole.
find_program(MEMBUDGET_NODE node REQUIRED)
# Binaryen once more after emscripten's own steps: its -Oz at link runs before the unused exports and imports are
# removed (metadce), and a pass after them finds 0.4 KB gzipped more (issue 31). Same features, same exports.
find_program(MEMBUDGET_BINARYEN_OPT wasm-opt REQUIRED)
add_custom_command(TARGET membudget_wasm POST_BUILD
  COMMAND ${MEMBUDGET_BINARYEN_OPT} -Oz "$<TARGET_FILE_DIR:membudget_wasm>/membudget.wasm" -o "$<TARGET_FILE_DIR:membudget_wasm>/membudget.wasm"
  COMMAND ${CMAKE_COMMAND} -E copy_if_different "$<TARGET_FILE_DIR:membudget_wasm>/membudget.js" "${CMAKE_SOURCE_DIR}/web/src/wasm/"
  COMMAND ${MEMBUDGET_NODE} "${CMAKE_SOURCE_DIR}/scripts/split-wasm-data.mjs" "$<TARGET_FILE_DIR:membudget_wasm>/membudget.wasm"
          "${CMAKE_SOURCE_DIR}/web/src/wasm/membudget.wasm" "${CMAKE_SOURCE_DIR}/web/src/wasm/membudget-data.bin"
  VERBATIM)
add_custom_command(TARGET membudget_planner_wasm POST_BUILD
  COMMAND ${CMAKE_COMMAND} -E copy_if_different
          "$<TARGET_FILE_DIR:membudget_planner_wasm>/membudget-planner.js" "$<TARGET_FILE_DIR:membudget_planner_wasm>/membudget-planner.wasm"
          "${CMAKE_SOURCE_DIR}/web/src/wasm/"
  VERBATIM)
