// Jest setup file (test/jest.config.js): every kit test file removes the temp dirs it made.
import { removeKitTempDirs } from './temp-dirs';

afterAll(removeKitTempDirs);
