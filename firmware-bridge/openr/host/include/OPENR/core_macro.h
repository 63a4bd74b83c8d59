// Host stand-in (see OObject.h): what stubgen's glue does, reduced to what the test sees.
#ifndef STANDIN_CORE_MACRO_H
#define STANDIN_CORE_MACRO_H
#define NEW_ALL_SUBJECT_AND_OBSERVER \
    for (int i_ = 0; i_ < numOfSubject; i_++) subject[i_] = new OSubject
#define REGISTER_ALL_ENTRY
#define SET_ALL_READY_AND_NOTIFY_ENTRY
#define ENABLE_ALL_SUBJECT
#define DISABLE_ALL_SUBJECT
#define ASSERT_READY_TO_ALL_OBSERVER
#define DEASSERT_READY_TO_ALL_OBSERVER
#define DELETE_ALL_SUBJECT_AND_OBSERVER \
    for (int i_ = 0; i_ < numOfSubject; i_++) delete subject[i_]
#endif
