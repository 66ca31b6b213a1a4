import { render } from 'preact';
import { App } from './components/app.js';
import './inspector.css';

const root = document.getElementById('app');
if (root) render(<App />, root);
