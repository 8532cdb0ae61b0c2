public import AppexCore
